package dev.provbench.load;

import dev.provbench.util.IntervalCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.HdrHistogram.Histogram;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The operations of one run. Every completion and failure is stamped <em>inside one lock</em> that also
 * opens and closes the measurement window, so whether an op belongs to the window is exact: an op counts
 * when it completes in {@code [windowStart, windowEnd]}. Inside the window it feeds the counts and the
 * latency histograms (queue, pipeline, total per kind); every op, in any phase, feeds the per-interval
 * series (a grid from the run start) and the live Micrometer metrics.
 *
 * <p>Auto warm-up: {@link #cycleEnded(int)} opens the window when every worker has ended one cycle.
 */
public final class OpLog {
    public enum Kind { CREATE, DELETE }

    /** Where an op's time went: waiting for a token, then request sent → outcome seen, and both. */
    public enum Part { QUEUE, PIPELINE, TOTAL }

    public enum Phase { WARMUP, WINDOW, DRAIN }

    /**
     * What a worker did to reconcile an outcome: a create whose answer was lost but whose claim existed and
     * was adopted ({@code RECOVERED}, counted when that create completes), a POST sent again after a connection
     * error whose claim did not exist ({@code CREATE_RETRY}), a DELETE sent again after a failure
     * ({@code DELETE_RETRY}), a claim of a failed create deleted by the run ({@code RECLAIMED}).
     */
    public enum Event { RECOVERED, CREATE_RETRY, DELETE_RETRY, RECLAIMED }

    private final Instant runStart;
    private final long runStartNanos;
    private final int workers;
    private final boolean autoWarmup;
    private long windowStart = Long.MAX_VALUE; // guarded by this
    private long windowEnd = Long.MAX_VALUE; // guarded by this
    private boolean capped;
    private final boolean[] firstCycleEnded;
    private int firstCyclesEnded;
    private long creates;
    private long deletes;
    private long failures;
    private long failuresOutside;
    private long warmupOps;
    private long afterWindow;
    private long inFlightAtStart;
    private long inFlightAtEnd;
    private final Map<String, Long> failuresByCause = new TreeMap<>();
    private final Map<Event, Long> events = new EnumMap<>(Event.class);
    private final Map<Kind, Map<Part, Histogram>> latency = new EnumMap<>(Kind.class);
    private final IntervalCounts seriesCreates;
    private final IntervalCounts seriesDeletes;
    private final IntervalCounts seriesFailures;
    /** Completed ops (both kinds) per {@link #FINE_STEP_NANOS}, for the steady-state verdict. */
    private final IntervalCounts seriesFine;
    public static final long FINE_STEP_NANOS = 1_000_000_000L;
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong completions = new AtomicLong();
    private final java.util.concurrent.CompletableFuture<RunWindow> opened = new java.util.concurrent.CompletableFuture<>();

    private MeterRegistry registry;
    private final Map<String, Counter> opCounters = new ConcurrentHashMap<>();
    private final Map<Kind, Timer> timers = new EnumMap<>(Kind.class);

    /**
     * @param workers    workers whose first cycle ends the auto warm-up
     * @param autoWarmup open the window when every worker has ended one cycle
     */
    public OpLog(Instant runStart, long runStartNanos, long intervalNanos, int intervals, int workers,
            boolean autoWarmup) {
        this.runStart = runStart;
        this.runStartNanos = runStartNanos;
        this.workers = workers;
        this.autoWarmup = autoWarmup;
        this.firstCycleEnded = new boolean[workers];
        this.seriesCreates = new IntervalCounts(runStartNanos, intervalNanos, intervals);
        this.seriesDeletes = new IntervalCounts(runStartNanos, intervalNanos, intervals);
        this.seriesFailures = new IntervalCounts(runStartNanos, intervalNanos, intervals);
        this.seriesFine = new IntervalCounts(runStartNanos, FINE_STEP_NANOS,
                (int) Math.min(200_000, (long) intervals * intervalNanos / FINE_STEP_NANOS + 1));
        for (Kind k : Kind.values()) {
            Map<Part, Histogram> m = new EnumMap<>(Part.class);
            for (Part p : Part.values()) {
                m.put(p, new Histogram(3));
            }
            latency.put(k, m);
        }
    }

    private static final java.util.concurrent.atomic.AtomicReference<AtomicLong> LATEST =
            new java.util.concurrent.atomic.AtomicReference<>(new AtomicLong());

    /** Also publish live metrics: provbench_ops_total{op,result}, provbench_op_duration_seconds{op}. */
    public OpLog withMetrics(MeterRegistry registry) {
        if (registry != null) {
            this.registry = registry;
            for (Kind k : Kind.values()) {
                timers.put(k, Timer.builder("provbench_op_duration")
                        .description("Create (to Bound) and delete (to PV gone) latency, limiter wait included")
                        .tag("op", name(k)).publishPercentileHistogram().register(registry));
            }
            // one gauge per registry for every run of the process (a sweep's, serve's): it reads the latest run
            // (a gauge registered per run would stay bound to the first run's count)
            LATEST.set(inFlight);
            if (registry.find("provbench_ops_in_flight").gauge() == null) {
                Gauge.builder("provbench_ops_in_flight", LATEST, l -> l.get().get())
                        .description("Create/delete cycles in progress").register(registry);
            }
        }
        return this;
    }

    private static String name(Kind k) {
        return k == Kind.CREATE ? "create" : "delete";
    }

    private void count(String op, String result) {
        if (registry != null) {
            opCounters.computeIfAbsent(op + "/" + result, k -> Counter.builder("provbench_ops")
                    .description("Completed and failed operations by type and result")
                    .tag("op", op).tag("result", result).register(registry)).increment();
        }
    }

    public long runStartNanos() {
        return runStartNanos;
    }

    /** Resolves when the window opens (for any reason). */
    public java.util.concurrent.CompletionStage<RunWindow> windowOpened() {
        return opened;
    }

    /** Opens the window now, unless it is open already. */
    public RunWindow openWindow(boolean warmupCapped) {
        return openWindow(warmupCapped, false);
    }

    /** No warm-up: opens the window at the run start, before any op (call before the workers start). */
    public RunWindow openWindowAtRunStart() {
        return openWindow(false, true);
    }

    private synchronized RunWindow openWindow(boolean warmupCapped, boolean atRunStart) {
        if (windowStart == Long.MAX_VALUE) {
            windowStart = atRunStart ? runStartNanos : System.nanoTime();
            capped = warmupCapped;
            inFlightAtStart = inFlight.get();
            opened.complete(window());
        }
        return window();
    }

    /** Closes the window now (opening it first if it never opened: an empty window). */
    public synchronized RunWindow closeWindow() {
        if (windowStart == Long.MAX_VALUE) {
            openWindow(false);
        }
        if (windowEnd == Long.MAX_VALUE) {
            windowEnd = System.nanoTime();
            inFlightAtEnd = inFlight.get();
        }
        return window();
    }

    public synchronized RunWindow window() {
        return new RunWindow(runStart, runStartNanos, windowStart, windowEnd, capped);
    }

    private Phase phase(long now) {
        return now < windowStart ? Phase.WARMUP : now <= windowEnd ? Phase.WINDOW : Phase.DRAIN;
    }

    public void started() {
        inFlight.incrementAndGet();
    }

    /** Worker {@code worker} ended a cycle (successful or not): the auto warm-up ends with the last first one. */
    public synchronized void cycleEnded(int worker) {
        inFlight.decrementAndGet();
        if (!firstCycleEnded[worker]) {
            firstCycleEnded[worker] = true;
            firstCyclesEnded++;
            if (autoWarmup && firstCyclesEnded == workers) {
                openWindow(false);
            }
        }
    }

    /** An op's object left the run's hands without a cycle (an open loop's claim gone, or given up). */
    public void ended() {
        inFlight.decrementAndGet();
    }

    public long inFlight() {
        return inFlight.get();
    }

    /**
     * An op of {@code kind} that started at {@code startNanos} (before waiting for its token), waited
     * {@code queueNanos} for the token and completes now. Returns the phase it completed in.
     */
    public Phase completed(Kind kind, long startNanos, long queueNanos) {
        return completed(kind, startNanos, queueNanos, false);
    }

    /** As {@link #completed(Kind, long, long)}; {@code recovered}: a create adopted after its answer was lost. */
    public Phase completed(Kind kind, long startNanos, long queueNanos, boolean recovered) {
        return completed(kind, startNanos, queueNanos, recovered, System.nanoTime());
    }

    /** As above, completed at {@code now} ({@link System#nanoTime()}, taken by the caller just before). */
    public Phase completed(Kind kind, long startNanos, long queueNanos, boolean recovered, long now) {
        Phase p;
        long total;
        synchronized (this) {
            total = now - startNanos;
            p = phase(now);
            (kind == Kind.CREATE ? seriesCreates : seriesDeletes).add(now);
            seriesFine.add(now);
            if (p == Phase.WINDOW) {
                if (recovered) {
                    events.merge(Event.RECOVERED, 1L, Long::sum);
                }
                if (kind == Kind.CREATE) {
                    creates++;
                } else {
                    deletes++;
                }
                Map<Part, Histogram> h = latency.get(kind);
                long q = Math.max(0, Math.min(queueNanos, total));
                h.get(Part.QUEUE).recordValue(q / 1000);
                h.get(Part.PIPELINE).recordValue((total - q) / 1000);
                h.get(Part.TOTAL).recordValue(total / 1000);
            } else if (p == Phase.WARMUP) {
                warmupOps++;
            } else {
                afterWindow++;
            }
        }
        completions.incrementAndGet();
        count(name(kind), "ok");
        Timer t = timers.get(kind);
        if (t != null) {
            t.record(total, TimeUnit.NANOSECONDS);
        }
        return p;
    }

    /** Counts {@code e} if it happens in the window. */
    public synchronized void event(Event e) {
        if (phase(System.nanoTime()) == Phase.WINDOW) {
            events.merge(e, 1L, Long::sum);
        }
    }

    /** A failed op, {@code cause} like {@code create:http-409}. */
    public void failed(String cause) {
        synchronized (this) {
            long now = System.nanoTime();
            seriesFailures.add(now);
            if (phase(now) == Phase.WINDOW) {
                failures++;
                failuresByCause.merge(cause, 1L, Long::sum);
            } else {
                failuresOutside++;
            }
        }
        int colon = cause.indexOf(':');
        count(colon > 0 ? cause.substring(0, colon) : "cycle", colon > 0 ? cause.substring(colon + 1) : cause);
    }

    /** The window's figures, frozen. */
    public record Counts(long creates, long deletes, long failures, Map<String, Long> failuresByCause,
                         long failuresOutsideWindow, long completedInWarmup, long completedAfterWindow,
                         long inFlightAtStart, long inFlightAtEnd, long recovered, long createRetries,
                         long deleteRetries, long reclaimed) {
    }

    public synchronized Counts counts() {
        return new Counts(creates, deletes, failures, new TreeMap<>(failuresByCause), failuresOutside, warmupOps,
                afterWindow, inFlightAtStart, inFlightAtEnd, events.getOrDefault(Event.RECOVERED, 0L),
                events.getOrDefault(Event.CREATE_RETRY, 0L), events.getOrDefault(Event.DELETE_RETRY, 0L),
                events.getOrDefault(Event.RECLAIMED, 0L));
    }

    /** Live: ops completed so far in every phase. */
    public long completions() {
        return completions.get();
    }

    /** A copy of the window's latency histogram (microseconds); reading never resets anything. */
    public synchronized Histogram latency(Kind kind, Part part) {
        return latency.get(kind).get(part).copy();
    }

    public IntervalCounts series(Kind kind) {
        return kind == Kind.CREATE ? seriesCreates : seriesDeletes;
    }

    /** Completed ops of both kinds per {@link #FINE_STEP_NANOS} from the run's start. */
    public IntervalCounts fineSeries() {
        return seriesFine;
    }

    public IntervalCounts failureSeries() {
        return seriesFailures;
    }
}
