package dev.provbench.kube;

import dev.provbench.util.IntervalCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one client sent: every request attempt by verb and resource, responses by code, and how long the
 * rate limiter held requests back. Thread-safe and cheap on the request path. Counts are cumulative from the
 * client's creation; a window's figures are the difference of two {@link #snapshot()}s, and its wait
 * distribution is what {@link #takeWaits()} returns at the window's end after a call at its start.
 */
public final class RequestStats {
    public static final long OVER_50MS = 50_000_000L;
    public static final long OVER_1S = 1_000_000_000L;

    /** Cumulative counts at one instant. */
    public record Snapshot(long total, Map<String, Long> byVerbResource, Map<String, Long> byCode, long throttled,
                           long over50ms, long over1s, long waitNanos, long deferred) {

        /** What happened between {@code earlier} and this snapshot. */
        public Snapshot minus(Snapshot earlier) {
            return new Snapshot(total - earlier.total, diff(byVerbResource, earlier.byVerbResource),
                    diff(byCode, earlier.byCode), throttled - earlier.throttled, over50ms - earlier.over50ms,
                    over1s - earlier.over1s, waitNanos - earlier.waitNanos, deferred - earlier.deferred);
        }

        private static Map<String, Long> diff(Map<String, Long> now, Map<String, Long> before) {
            Map<String, Long> out = new TreeMap<>();
            now.forEach((k, v) -> {
                long d = v - before.getOrDefault(k, 0L);
                if (d != 0) {
                    out.put(k, d);
                }
            });
            return out;
        }

        /** Requests by verb (the first word of each verb-resource key). */
        public Map<String, Long> byVerb() {
            Map<String, Long> verbs = new TreeMap<>();
            byVerbResource.forEach((k, v) -> verbs.merge(k.substring(0, k.indexOf(' ')), v, Long::sum));
            return verbs;
        }

        public double waitSeconds() {
            return waitNanos / 1e9;
        }
    }

    private final String client;
    private final MeterRegistry registry;
    private final Map<String, LongAdder> byVerbResource = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> byCode = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final LongAdder total = new LongAdder();
    private final LongAdder throttled = new LongAdder();
    private final LongAdder over50ms = new LongAdder();
    private final LongAdder over1s = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();
    private final LongAdder deferred = new LongAdder();
    private final Recorder waits = new Recorder(3);
    private final ThreadLocal<long[]> lastWait = ThreadLocal.withInitial(() -> new long[1]);
    private volatile IntervalCounts throttledSeries;
    private final Counter throttledCounter;
    private final Timer waitTimer;

    /** @param registry null to keep the counts in memory only */
    public RequestStats(String client, MeterRegistry registry) {
        this.client = client;
        this.registry = registry;
        this.throttledCounter = registry == null ? null : Counter.builder("provbench_kube_throttled_requests")
                .description("Requests the client-side rate limiter delayed").tag("client", client)
                .register(registry);
        this.waitTimer = registry == null ? null : Timer.builder("provbench_kube_throttle_wait")
                .description("Time requests waited in the client-side rate limiter").tag("client", client)
                .register(registry);
    }

    public String client() {
        return client;
    }

    /** Also count throttled requests per interval of this grid (the run's time series). */
    public void trackThrottled(IntervalCounts series) {
        this.throttledSeries = series;
    }

    /** One request attempt that waited {@code waitNanos} for its token. */
    public void request(RequestInfo info, long waitNanos) {
        lastWait.get()[0] = waitNanos;
        total.increment();
        byVerbResource.computeIfAbsent(info.key(), k -> new LongAdder()).increment();
        if (registry != null) {
            counters.computeIfAbsent(info.key(), k -> Counter.builder("provbench_kube_requests")
                    .description("Kubernetes API request attempts by client, verb and resource")
                    .tag("client", client).tag("verb", info.verb()).tag("resource", info.resource())
                    .register(registry)).increment();
        }
        if (waitNanos > 0) {
            throttled.increment();
            this.waitNanos.add(waitNanos);
            if (waitNanos > OVER_50MS) {
                over50ms.increment();
            }
            if (waitNanos > OVER_1S) {
                over1s.increment();
            }
            waits.recordValue(Math.max(1, waitNanos / 1000));
            IntervalCounts s = throttledSeries;
            if (s != null) {
                s.add(System.nanoTime());
            }
            if (throttledCounter != null) {
                throttledCounter.increment();
                waitTimer.record(waitNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** How long the calling thread's latest request waited for its token (0 if it did not wait). */
    public long lastWaitNanos() {
        return lastWait.get()[0];
    }

    /** A request made where it must not block (an event loop): it took its token but did not wait. */
    public void deferred() {
        deferred.increment();
    }

    public void response(String code) {
        byCode.computeIfAbsent(code, k -> new LongAdder()).increment();
    }

    public long total() {
        return total.sum();
    }

    public long throttled() {
        return throttled.sum();
    }

    public double waitSeconds() {
        return waitNanos.sum() / 1e9;
    }

    public long count(String verb, String resource) {
        LongAdder a = byVerbResource.get(verb + " " + resource);
        return a == null ? 0 : a.sum();
    }

    public Snapshot snapshot() {
        Map<String, Long> vr = new TreeMap<>();
        byVerbResource.forEach((k, v) -> vr.put(k, v.sum()));
        Map<String, Long> codes = new TreeMap<>();
        byCode.forEach((k, v) -> codes.put(k, v.sum()));
        return new Snapshot(total.sum(), vr, codes, throttled.sum(), over50ms.sum(), over1s.sum(), waitNanos.sum(),
                deferred.sum());
    }

    /**
     * The waits (microseconds) recorded since the previous call; one reader only (the run's request
     * measurement calls it at the window's start and end).
     */
    public synchronized Histogram takeWaits() {
        return waits.getIntervalHistogram();
    }
}
