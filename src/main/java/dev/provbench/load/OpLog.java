package dev.provbench.load;

import org.HdrHistogram.Recorder;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Completed operations of a run: counts inside the measured window, latency histograms, failures by cause,
 * and a per-interval time series bucketed by completion time.
 */
public final class OpLog {
    public enum Kind { CREATE, DELETE }

    private final long startNanos;
    private final long intervalNanos;
    private volatile long endNanos = Long.MAX_VALUE;
    private final LongAdder creates = new LongAdder();
    private final LongAdder deletes = new LongAdder();
    private final LongAdder afterWindow = new LongAdder();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final LongAdder failureCount = new LongAdder();
    private final Recorder createLatency = new Recorder(3);
    private final Recorder deleteLatency = new Recorder(3);
    private final AtomicLongArray seriesCreates;
    private final AtomicLongArray seriesDeletes;
    private final AtomicLongArray seriesFailures;
    private final AtomicLong inFlight = new AtomicLong();
    private io.micrometer.core.instrument.MeterRegistry registry;
    private final Map<String, io.micrometer.core.instrument.Counter> opCounters = new ConcurrentHashMap<>();
    private io.micrometer.core.instrument.Timer createTimer;
    private io.micrometer.core.instrument.Timer deleteTimer;

    /** Also publish live metrics: provbench_ops_total{op,result}, provbench_op_duration_seconds{op}. */
    public OpLog withMetrics(io.micrometer.core.instrument.MeterRegistry registry) {
        if (registry != null) {
            this.registry = registry;
            createTimer = io.micrometer.core.instrument.Timer.builder("provbench_op_duration")
                    .description("Create (to Bound) and delete (to PV gone) latency").tag("op", "create")
                    .publishPercentileHistogram().register(registry);
            deleteTimer = io.micrometer.core.instrument.Timer.builder("provbench_op_duration")
                    .description("Create (to Bound) and delete (to PV gone) latency").tag("op", "delete")
                    .publishPercentileHistogram().register(registry);
            io.micrometer.core.instrument.Gauge.builder("provbench_ops_in_flight", inFlight, AtomicLong::get)
                    .description("Create/delete cycles in progress").register(registry);
        }
        return this;
    }

    private void count(String op, String result) {
        if (registry != null) {
            opCounters.computeIfAbsent(op + "/" + result, k -> io.micrometer.core.instrument.Counter
                    .builder("provbench_ops").description("Completed and failed operations by type and result")
                    .tag("op", op).tag("result", result).register(registry)).increment();
        }
    }

    public OpLog(long startNanos, long intervalNanos, int maxIntervals) {
        this.startNanos = startNanos;
        this.intervalNanos = intervalNanos;
        this.seriesCreates = new AtomicLongArray(maxIntervals);
        this.seriesDeletes = new AtomicLongArray(maxIntervals);
        this.seriesFailures = new AtomicLongArray(maxIntervals);
    }

    public void closeWindow(long endNanos) {
        this.endNanos = endNanos;
    }

    public long startNanos() {
        return startNanos;
    }

    private int bucket(long at) {
        long i = (at - startNanos) / intervalNanos;
        return (int) Math.min(Math.max(i, 0), seriesCreates.length() - 1);
    }

    public void started() {
        inFlight.incrementAndGet();
    }

    public void ended() {
        inFlight.decrementAndGet();
    }

    public long inFlight() {
        return inFlight.get();
    }

    /** An operation that completed at {@code at} after {@code latencyNanos}; false if after the window. */
    public boolean completed(Kind kind, long at, long latencyNanos) {
        count(kind == Kind.CREATE ? "create" : "delete", "ok");
        if (registry != null) {
            (kind == Kind.CREATE ? createTimer : deleteTimer).record(latencyNanos,
                    java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        if (at > endNanos) {
            afterWindow.increment();
            return false;
        }
        if (kind == Kind.CREATE) {
            creates.increment();
            createLatency.recordValue(Math.max(1, latencyNanos / 1000));
            seriesCreates.incrementAndGet(bucket(at));
        } else {
            deletes.increment();
            deleteLatency.recordValue(Math.max(1, latencyNanos / 1000));
            seriesDeletes.incrementAndGet(bucket(at));
        }
        return true;
    }

    public void failed(String cause, long at) {
        int colon = cause.indexOf(':');
        count(colon > 0 ? cause.substring(0, colon) : "cycle", colon > 0 ? cause.substring(colon + 1) : cause);
        failureCount.increment();
        failures.computeIfAbsent(cause, k -> new LongAdder()).increment();
        if (at <= endNanos) {
            seriesFailures.incrementAndGet(bucket(at));
        }
    }

    public long creates() {
        return creates.sum();
    }

    public long deletes() {
        return deletes.sum();
    }

    public long failures() {
        return failureCount.sum();
    }

    public long afterWindow() {
        return afterWindow.sum();
    }

    public Map<String, Long> failuresByCause() {
        Map<String, Long> out = new TreeMap<>();
        failures.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    public org.HdrHistogram.Histogram createHistogram() {
        return createLatency.getIntervalHistogram();
    }

    public org.HdrHistogram.Histogram deleteHistogram() {
        return deleteLatency.getIntervalHistogram();
    }

    public long[] series(Kind kind) {
        return copy(kind == Kind.CREATE ? seriesCreates : seriesDeletes);
    }

    public long[] failureSeries() {
        return copy(seriesFailures);
    }

    private static long[] copy(AtomicLongArray a) {
        long[] out = new long[a.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i);
        }
        return out;
    }
}
