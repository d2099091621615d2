package dev.provbench.kube;

import dev.provbench.util.IntervalCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one client sent: every request attempt by verb and resource, the outcome of each attempt, and how long
 * the rate limiter held requests back. Thread-safe and cheap on the request path.
 *
 * <p><b>Attempts and outcomes.</b> Each attempt is counted when it is sent ({@link #request}) and gets exactly
 * one outcome later: its HTTP code ({@link #answered}), or, when no answer came, what the caller saw
 * ({@link #unanswered}: {@code connection-refused}, {@code client-timeout}, {@code connection-error}). An
 * attempt nobody reported on after {@link #NO_ANSWER_AFTER} is {@code no-answer} (fabric8 tells interceptors
 * nothing about a connection failure or a timeout when its retries are off, so an informer's failed list or
 * watch ends that way); one still waiting is {@code in-flight}. So {@code byCode} always sums to {@code total}.
 *
 * <p><b>Epochs.</b> Counts belong to the epoch in which the attempt was <em>sent</em>, including its outcome when
 * that arrives later: {@link #beginEpoch()} at the window's start and end makes the window an epoch, whose
 * {@link #epoch(int)} read after the drain has every answer in.
 */
public final class RequestStats {
    public static final long OVER_50MS = 50_000_000L;
    public static final long OVER_1S = 1_000_000_000L;
    /** An attempt without any report this long after it was sent is counted {@code no-answer}. */
    public static final long NO_ANSWER_AFTER = 30_000_000_000L; // fabric8 gives up after 10 s (+ 5 s padding)
    public static final String IN_FLIGHT = "in-flight";
    public static final String NO_ANSWER = "no-answer";

    /** Counts at one instant: cumulative ({@link #snapshot()}) or of one epoch ({@link #epoch(int)}). */
    public record Snapshot(long total, Map<String, Long> byVerbResource, Map<String, Long> byCode, long throttled,
                           long over50ms, long over1s, long waitNanos, long deferred) {

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

    /** The counters of one epoch. */
    private static final class Epoch {
        final Map<String, LongAdder> byVerbResource = new ConcurrentHashMap<>();
        final Map<String, LongAdder> byCode = new ConcurrentHashMap<>();
        final LongAdder total = new LongAdder();
        final LongAdder throttled = new LongAdder();
        final LongAdder over50ms = new LongAdder();
        final LongAdder over1s = new LongAdder();
        final LongAdder waitNanos = new LongAdder();
        final LongAdder deferred = new LongAdder();
    }

    private record Pending(Epoch epoch, long sentNanos) {
    }

    private final String client;
    private final MeterRegistry registry;
    private final List<Epoch> epochs = new CopyOnWriteArrayList<>(List.of(new Epoch()));
    private volatile Epoch current = epochs.get(0);
    private final AtomicLong attempts = new AtomicLong();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Recorder waits = new Recorder(3);
    private final ThreadLocal<long[]> last = ThreadLocal.withInitial(() -> new long[2]); // wait, attempt id
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

    /**
     * One request attempt, about to be sent, that waited {@code waitNanos} for its token. Returns its id, for
     * {@link #answered}/{@link #unanswered}; the calling thread's latest id is also kept.
     */
    public long request(RequestInfo info, long waitNanos) {
        long id = attempts.incrementAndGet();
        Epoch e = current;
        pending.put(id, new Pending(e, System.nanoTime()));
        long[] l = last.get();
        l[0] = waitNanos;
        l[1] = id;
        e.total.increment();
        e.byVerbResource.computeIfAbsent(info.key(), k -> new LongAdder()).increment();
        if (registry != null) {
            counters.computeIfAbsent(info.key(), k -> Counter.builder("provbench_kube_requests")
                    .description("Kubernetes API request attempts by client, verb and resource")
                    .tag("client", client).tag("verb", info.verb()).tag("resource", info.resource())
                    .register(registry)).increment();
        }
        if (waitNanos > 0) {
            e.throttled.increment();
            e.waitNanos.add(waitNanos);
            if (waitNanos > OVER_50MS) {
                e.over50ms.increment();
            }
            if (waitNanos > OVER_1S) {
                e.over1s.increment();
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
        return id;
    }

    /** Attempt {@code id} got an HTTP answer; later reports on the same attempt are ignored. */
    public void answered(long id, int code) {
        resolve(id, Integer.toString(code));
    }

    /**
     * Attempt {@code id} got no answer: {@code outcome} is what the caller saw ({@link Failures}); ignored if the
     * attempt already has an outcome.
     */
    public void unanswered(long id, String outcome) {
        resolve(id, outcome);
    }

    /**
     * A call on this thread failed with {@code e}: if no answer came, its attempt (the thread's latest) gets
     * the outcome the caller saw. Returns the failure's cause ({@link Failures#cause}).
     */
    public String failed(io.fabric8.kubernetes.client.KubernetesClientException e) {
        String cause = Failures.cause(e);
        if (Failures.noAnswer(e)) {
            unanswered(lastAttempt(), cause);
        }
        return cause;
    }

    /** The calling thread's latest attempt id (0 if it never sent one). */
    public long lastAttempt() {
        return last.get()[1];
    }

    private void resolve(long id, String outcome) {
        Pending p = pending.remove(id);
        if (p != null) {
            p.epoch.byCode.computeIfAbsent(outcome, k -> new LongAdder()).increment();
        }
    }

    /** Gives attempts silent for {@link #NO_ANSWER_AFTER} the outcome {@code no-answer}. */
    private void expire() {
        long now = System.nanoTime();
        pending.forEach((id, p) -> {
            if (now - p.sentNanos > NO_ANSWER_AFTER) {
                resolve(id, NO_ANSWER);
            }
        });
    }

    /** How long the calling thread's latest request waited for its token (0 if it did not wait). */
    public long lastWaitNanos() {
        return last.get()[0];
    }

    /** A request made where it must not block (an event loop): it took its token but did not wait. */
    public void deferred() {
        current.deferred.increment();
    }

    /**
     * Starts a new epoch: attempts sent from now on, and their outcomes whenever they come, count there.
     * Returns its index (the first epoch, from the client's creation, is 0).
     */
    public synchronized int beginEpoch() {
        Epoch e = new Epoch();
        epochs.add(e);
        current = e;
        return epochs.size() - 1;
    }

    public long total() {
        return sum(e -> e.total);
    }

    public long throttled() {
        return sum(e -> e.throttled);
    }

    public double waitSeconds() {
        return sum(e -> e.waitNanos) / 1e9;
    }

    private long sum(java.util.function.Function<Epoch, LongAdder> f) {
        long n = 0;
        for (Epoch e : epochs) {
            n += f.apply(e).sum();
        }
        return n;
    }

    public long count(String verb, String resource) {
        long n = 0;
        for (Epoch e : epochs) {
            LongAdder a = e.byVerbResource.get(verb + " " + resource);
            n += a == null ? 0 : a.sum();
        }
        return n;
    }

    /** Everything since the client's creation. */
    public Snapshot snapshot() {
        expire();
        Snapshot out = null;
        for (Epoch e : epochs) {
            Snapshot s = read(e);
            out = out == null ? s : plus(out, s);
        }
        return out;
    }

    /** The attempts sent in epoch {@code index} and their outcomes so far. */
    public Snapshot epoch(int index) {
        expire();
        return read(epochs.get(index));
    }

    private static Snapshot read(Epoch e) {
        // outcomes before the total: an attempt resolved meanwhile shows as in flight, never twice
        Map<String, Long> codes = new TreeMap<>();
        e.byCode.forEach((k, v) -> codes.put(k, v.sum()));
        long resolved = codes.values().stream().mapToLong(Long::longValue).sum();
        long total = e.total.sum();
        if (total > resolved) {
            codes.put(IN_FLIGHT, total - resolved);
        }
        Map<String, Long> vr = new TreeMap<>();
        e.byVerbResource.forEach((k, v) -> vr.put(k, v.sum()));
        return new Snapshot(total, vr, codes, e.throttled.sum(), e.over50ms.sum(), e.over1s.sum(),
                e.waitNanos.sum(), e.deferred.sum());
    }

    private static Snapshot plus(Snapshot a, Snapshot b) {
        return new Snapshot(a.total + b.total, merge(a.byVerbResource, b.byVerbResource), merge(a.byCode, b.byCode),
                a.throttled + b.throttled, a.over50ms + b.over50ms, a.over1s + b.over1s, a.waitNanos + b.waitNanos,
                a.deferred + b.deferred);
    }

    private static Map<String, Long> merge(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> out = new TreeMap<>(a);
        b.forEach((k, v) -> out.merge(k, v, Long::sum));
        return out;
    }

    /**
     * The waits (microseconds) recorded since the previous call; one reader only (the run's request
     * measurement calls it at the window's start and end).
     */
    public synchronized Histogram takeWaits() {
        return waits.getIntervalHistogram();
    }
}
