package dev.provbench.kube;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.HdrHistogram.Recorder;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one client sent: every request attempt by verb and resource, responses by code, and how long the
 * rate limiter held requests back. Thread-safe and cheap on the request path.
 */
public final class RequestStats {
    public static final long OVER_50MS = 50_000_000L;
    public static final long OVER_1S = 1_000_000_000L;

    /** A frozen copy for reports. */
    public record Snapshot(long total, Map<String, Long> byVerb, Map<String, Long> byVerbResource,
                           Map<String, Long> byCode, long throttled, long over50ms, long over1s,
                           double waitSeconds, double waitP50Ms, double waitP99Ms, double waitMaxMs,
                           long deferred) {
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
    private final org.HdrHistogram.Histogram waitTotal = new org.HdrHistogram.Histogram(3);
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

    /** One request attempt that waited {@code waitNanos} for its token. */
    public void request(RequestInfo info, long waitNanos) {
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
            if (throttledCounter != null) {
                throttledCounter.increment();
                waitTimer.record(waitNanos, TimeUnit.NANOSECONDS);
            }
        }
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

    public synchronized Snapshot snapshot() {
        waitTotal.add(waits.getIntervalHistogram());
        Map<String, Long> vr = new TreeMap<>();
        Map<String, Long> verbs = new TreeMap<>();
        byVerbResource.forEach((k, v) -> {
            long n = v.sum();
            vr.put(k, n);
            verbs.merge(k.substring(0, k.indexOf(' ')), n, Long::sum);
        });
        Map<String, Long> codes = new TreeMap<>();
        byCode.forEach((k, v) -> codes.put(k, v.sum()));
        boolean any = waitTotal.getTotalCount() > 0;
        return new Snapshot(total.sum(), verbs, vr, codes, throttled.sum(), over50ms.sum(), over1s.sum(),
                waitSeconds(),
                any ? waitTotal.getValueAtPercentile(50) / 1e3 : 0,
                any ? waitTotal.getValueAtPercentile(99) / 1e3 : 0,
                any ? waitTotal.getMaxValue() / 1e3 : 0,
                deferred.sum());
    }
}
