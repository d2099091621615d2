package dev.provbench.kube;

import io.github.bucket4j.TimeMeter;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** client-go's token bucket semantics, on a clock the test controls. */
class RateLimiterTest {

    /** A fake clock; sleeping advances it. */
    static final class FakeClock implements TimeMeter, RateLimiter.Sleeper {
        long now = 1_000_000_000L;

        public long currentTimeNanos() {
            return now;
        }

        public boolean isWallClockBased() {
            return false;
        }

        public void sleepNanos(long nanos) {
            now += nanos;
        }
    }

    static final long MS = 1_000_000L;

    @Test
    void burstFirstThenQps() throws Exception {
        FakeClock clock = new FakeClock();
        RateLimiter l = RateLimiter.of(5, 10, clock, clock);
        for (int i = 0; i < 10; i++) {
            assertEquals(0, l.acquire(), "request " + i + " is within the burst");
        }
        long start = clock.now;
        for (int i = 1; i <= 10; i++) {
            long waited = l.acquire();
            assertEquals(200 * MS, waited, 1000, "then one token every 1/qps");
            assertEquals(start + i * 200 * MS, clock.now, 1000);
        }
    }

    @Test
    void reservationsQueueUpAndTheBucketRefillsToBurstOnly() {
        FakeClock clock = new FakeClock();
        RateLimiter l = RateLimiter.of(5, 10, clock, clock);
        for (int i = 0; i < 10; i++) {
            assertEquals(0, l.reserve());
        }
        assertEquals(200 * MS, l.reserve(), 1000);
        assertEquals(400 * MS, l.reserve(), 1000, "a second waiter waits behind the first");
        clock.now += 100_000 * MS; // a long idle time
        assertEquals(10, l.availableTokens(), "never more than burst");
    }

    @Test
    void neverMoreThanBurstPlusQpsTimesT() throws Exception {
        for (double qps : new double[]{5, 10, 25, 50, 0.5, 2.5}) {
            int burst = (int) Math.max(1, qps * 2);
            FakeClock clock = new FakeClock();
            RateLimiter l = RateLimiter.of(qps, burst, clock, clock);
            SplittableRandom random = new SplittableRandom(7);
            long t0 = clock.now;
            List<Long> grants = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                clock.now += random.nextLong(0, (long) (400 * MS / qps)); // bursty arrivals
                l.acquire();
                grants.add(clock.now - t0);
            }
            for (int i = 0; i < grants.size(); i++) {
                double t = grants.get(i) / 1e9;
                assertTrue(i + 1 <= burst + qps * t + 1e-6,
                        "qps " + qps + ": " + (i + 1) + " requests by t=" + t + "s exceeds burst + qps*t");
            }
            // and when requests arrive back to back the limit is reached, not undershot
            FakeClock c2 = new FakeClock();
            RateLimiter tight = RateLimiter.of(qps, burst, c2, c2);
            long start = c2.now;
            int n = 1000;
            for (int i = 0; i < n; i++) {
                tight.acquire();
            }
            double elapsed = (c2.now - start) / 1e9;
            assertEquals((n - burst) / qps, elapsed, 1e-3, "qps " + qps);
        }
    }

    @Test
    void defaultsAndDisabling() throws Exception {
        FakeClock clock = new FakeClock();
        RateLimiter defaults = RateLimiter.of(0, 0, clock, clock);
        assertEquals(5, defaults.qps());
        assertEquals(10, defaults.burst());
        RateLimiter off = RateLimiter.of(-1, 0, clock, clock);
        assertFalse(off.enabled());
        for (int i = 0; i < 100_000; i++) {
            assertEquals(0, off.acquire());
        }
    }

    @Test
    void statsCountThrottledRequests() throws Exception {
        FakeClock clock = new FakeClock();
        RateLimiter l = RateLimiter.of(5, 2, clock, clock);
        RequestStats stats = new RequestStats("test", null);
        RequestInfo create = RequestInfo.of("POST", URI.create("https://k/api/v1/namespaces/a/persistentvolumeclaims"));
        for (int i = 0; i < 4; i++) {
            stats.request(create, l.acquire());
        }
        clock.now += 2_000 * MS;
        stats.request(create, l.acquire());
        RequestStats.Snapshot s = stats.snapshot();
        assertEquals(5, s.total());
        assertEquals(2, s.throttled(), "the 3rd and 4th waited");
        assertEquals(2, s.over50ms());
        assertEquals(0, s.over1s());
        assertEquals(0.4, s.waitSeconds(), 1e-6);
        assertEquals(5, s.byVerbResource().get("create persistentvolumeclaims"));
    }

    @Test
    void requestClassification() {
        assertEquals(new RequestInfo("list", "persistentvolumes"),
                RequestInfo.of("GET", URI.create("https://k/api/v1/persistentvolumes?labelSelector=a")));
        assertEquals(new RequestInfo("watch", "persistentvolumeclaims"), RequestInfo.of("GET",
                URI.create("https://k/api/v1/namespaces/ns/persistentvolumeclaims?watch=true&resourceVersion=5")));
        assertEquals(new RequestInfo("get", "persistentvolumes"),
                RequestInfo.of("GET", URI.create("https://k/api/v1/persistentvolumes/pv-1")));
        assertEquals(new RequestInfo("delete", "persistentvolumeclaims"),
                RequestInfo.of("DELETE", URI.create("https://k/api/v1/namespaces/ns/persistentvolumeclaims/c")));
        assertEquals(new RequestInfo("update", "persistentvolumeclaims/status"),
                RequestInfo.of("PUT", URI.create("https://k/api/v1/namespaces/ns/persistentvolumeclaims/c/status")));
        assertEquals(new RequestInfo("create", "events"),
                RequestInfo.of("POST", URI.create("https://k/apis/events.k8s.io/v1/namespaces/ns/events")));
        assertEquals(new RequestInfo("patch", "persistentvolumes"),
                RequestInfo.of("PATCH", URI.create("https://k/api/v1/persistentvolumes/pv-1")));
        assertEquals(new RequestInfo("list", "namespaces"),
                RequestInfo.of("GET", URI.create("https://k/api/v1/namespaces")));
        assertEquals(new RequestInfo("get", "namespaces"),
                RequestInfo.of("GET", URI.create("https://k/api/v1/namespaces/default")));
    }

    @Test
    void aWaiterThatIsInterruptedHandsItsTokenBack() {
        FakeClock clock = new FakeClock();
        RateLimiter.Sleeper interrupted = nanos -> {
            throw new InterruptedException();
        };
        RateLimiter l = RateLimiter.of(5, 10, clock, interrupted);
        for (int i = 0; i < 10; i++) {
            assertDoesNotThrow(l::acquire); // the burst: no wait, no sleep
        }
        assertEquals(0, l.availableTokens());
        for (int i = 0; i < 1000; i++) { // a thousand aborted waiters
            org.junit.jupiter.api.Assertions.assertThrows(InterruptedException.class, l::acquire);
        }
        assertEquals(0, l.availableTokens(), "no debt left behind");
    }
}
