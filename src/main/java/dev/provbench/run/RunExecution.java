package dev.provbench.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.LoadRun;
import dev.provbench.load.OpLog;
import dev.provbench.load.RunWindow;
import dev.provbench.report.ReportBuilder;
import dev.provbench.measure.ClientRequests;
import dev.provbench.measure.OperationStages;
import dev.provbench.measure.Operations;
import dev.provbench.report.RunReport;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One load run's life: pending → running → succeeded | failed | aborted, what it is doing now, and its
 * report once it has ended. Its id is also the value of the run's label on every claim it creates. The live
 * figures here are the ones the CLI's progress line, the REST API and the live page show (the page does not
 * compute any); their rates go through {@link RunWindow#rate}.
 */
public final class RunExecution {
    public enum State {
        PENDING, RUNNING, SUCCEEDED, FAILED, ABORTED;

        public String json() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public boolean ended() {
            return this == SUCCEEDED || this == FAILED || this == ABORTED;
        }
    }

    /**
     * A point of the live series, once a second.
     *
     * @param t            seconds since the run start
     * @param ops          ops completed since the run start, every phase
     * @param opsPerSecond ops over the {@link #RECENT_SECONDS} before this point
     * @param throttled    provbench's throttled requests since its client was created
     */
    public record Sample(double t, String phase, long ops, double opsPerSecond, long failures, long throttled) {
    }

    /**
     * What a run is doing now. Counts ({@code creates}, {@code deletes}, {@code failures}) and
     * {@code opsPerSecond} cover the window so far (0 / null during warm-up); {@code recentOpsPerSecond} the
     * last {@link #RECENT_SECONDS} in any phase; requests and throttling since the client was created.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Progress(String phase, double elapsedSeconds, Double warmupSeconds, double windowSeconds,
                           Double plannedSeconds, Long plannedCycles, long creates, long deletes, long failures,
                           long inFlight, Double opsPerSecond, double recentOpsPerSecond, long requests,
                           long throttled, double throttleWaitSeconds, List<Sample> samples,
                           OperationStages.Stages stages, String sharedWith, String bulk) {
    }

    /** The span of {@code recentOpsPerSecond}. */
    public static final int RECENT_SECONDS = 5;
    private static final int MAX_SAMPLES = 1200;

    private record Raw(long nanos, long ops) {
    }

    private final String id;
    private final RunRequest.Checked checked;
    private final Instant created;
    private volatile State state = State.PENDING;
    private volatile Instant started;
    private volatile Instant finished;
    private volatile LoadRun run;
    private volatile RequestStats stats;
    private volatile RunReport report;
    private volatile String message;
    private volatile int exitCode = -1;
    private volatile boolean abortRequested;
    private final List<Sample> samples = new ArrayList<>();
    private volatile java.util.function.Supplier<OperationStages.Stages> liveStages;

    private volatile java.util.function.Supplier<String> liveShared;

    private volatile java.util.function.Supplier<String> liveBulk;

    /** Where the live view reads a bulk run's wave so far. */
    void liveBulk(java.util.function.Supplier<String> s) {
        liveBulk = s;
    }

    /** Where the live view reads what other tenants of the provisioner did so far (null: none seen). */
    void liveShared(java.util.function.Supplier<String> s) {
        liveShared = s;
    }

    /** Where the live view reads the stages of the window's ops so far. */
    void liveStages(java.util.function.Supplier<OperationStages.Stages> s) {
        liveStages = s;
    }
    private final List<Raw> recent = new ArrayList<>();

    public RunExecution(RunRequest.Checked checked) {
        this.id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        this.checked = checked;
        this.created = Instant.now();
    }

    public String id() {
        return id;
    }

    public RunRequest.Checked checked() {
        return checked;
    }

    public RunRequest request() {
        return checked.request();
    }

    public State state() {
        return state;
    }

    public Instant created() {
        return created;
    }

    public Instant started() {
        return started;
    }

    public Instant finished() {
        return finished;
    }

    public RunReport report() {
        return report;
    }

    /** Why it failed or was aborted, if it did. */
    public String message() {
        return message;
    }

    /** {@code provbench run}'s exit code for this run; -1 until it has ended. */
    public int exitCode() {
        return exitCode;
    }

    /**
     * Stops the run: no new cycles start, running ones finish (bounded by the op timeout), then everything it
     * created is deleted and the report is written. Returns false if it had already ended.
     */
    public synchronized boolean abort() {
        if (state.ended()) {
            return false;
        }
        abortRequested = true;
        LoadRun r = run;
        if (r != null) {
            r.abort();
        }
        return true;
    }

    public boolean abortRequested() {
        return abortRequested;
    }

    synchronized void running(LoadRun r, RequestStats s) {
        run = r;
        stats = s;
        started = Instant.now();
        state = State.RUNNING;
        if (abortRequested) {
            r.abort();
        }
    }

    private record Ending(State state, int exitCode, RunReport report, String message) {
    }

    private Ending ending;

    /**
     * How the run ended; shown by {@link #publishEnd()} once what the run set up (its client, the local cluster) is
     * closed, so whoever sees the run ended can start the next one at once (the registry is free by then).
     */
    synchronized void ended(State s, int code, RunReport r, String why) {
        sample();
        ending = new Ending(s, code, r, why);
    }

    /** Makes the end recorded by {@link #ended} visible; the executor calls it after its tear-down. */
    synchronized void publishEnd() {
        if (ending == null || state.ended()) {
            return;
        }
        report = ending.report();
        exitCode = ending.exitCode();
        message = ending.message();
        finished = Instant.now();
        state = ending.state();
        run = null;
        liveStages = null;
        liveShared = null;
        liveBulk = null;
    }

    /** Records one point of the live series (called every second while running). */
    void sample() {
        LoadRun r = run;
        RequestStats s = stats;
        OpLog log = r == null ? null : r.log();
        if (log == null || s == null) {
            return;
        }
        long now = System.nanoTime();
        long ops = log.completions();
        OpLog.Counts counts = log.counts();
        synchronized (samples) {
            recent.add(new Raw(now, ops));
            while (recent.size() > 2 && now - recent.get(1).nanos() >= RECENT_SECONDS * 1_000_000_000L) {
                recent.remove(0);
            }
            Raw from = recent.get(0);
            samples.add(new Sample(ReportBuilder.round((now - log.runStartNanos()) / 1e9), r.phase().json(), ops,
                    ReportBuilder.round(RunWindow.rate(ops - from.ops(), from.nanos(), now)), counts.failures()
                    + counts.failuresOutsideWindow(), s.throttled()));
            if (samples.size() > MAX_SAMPLES) { // keep the whole run at half the resolution
                for (int i = samples.size() - 2; i > 0; i -= 2) {
                    samples.remove(i);
                }
            }
        }
    }

    private double recentRate() {
        synchronized (samples) {
            return samples.isEmpty() ? 0 : samples.get(samples.size() - 1).opsPerSecond();
        }
    }

    /** The live view; null before the load has started. */
    public Progress progress() {
        LoadRun r = run;
        RequestStats s = stats;
        List<Sample> copy;
        synchronized (samples) {
            copy = List.copyOf(samples);
        }
        OpLog log = r == null ? null : r.log();
        if (log == null || s == null) {
            return report == null ? null : fromReport(copy);
        }
        long now = System.nanoTime();
        RunWindow w = log.window();
        OpLog.Counts c = log.counts();
        double windowSeconds = w.opened() ? (Math.min(now, w.windowEndNanos()) - w.windowStartNanos()) / 1e9 : 0;
        Double rate = w.opened() ? ReportBuilder.round(RunWindow.rate(c.creates() + c.deletes(), w.windowStartNanos(),
                Math.min(now, w.windowEndNanos()))) : null;
        return new Progress(r.phase().json(), ReportBuilder.round((now - w.runStartNanos()) / 1e9),
                w.opened() ? ReportBuilder.round(w.warmupSeconds()) : null, ReportBuilder.round(windowSeconds),
                planned(), plannedCycles(), c.creates(), c.deletes(), c.failures(), log.inFlight(), rate, recentRate(),
                s.total(), s.throttled(), ReportBuilder.round(s.waitSeconds()), copy,
                liveStages == null ? null : liveStages.get(), liveShared == null ? null : liveShared.get(),
                liveBulk == null ? null : liveBulk.get());
    }

    private Progress fromReport(List<Sample> copy) {
        Operations.Ops o = report.section(Operations.OPS);
        Operations.Window w = report.section(Operations.WINDOW);
        RunReport.Requests q = report.section(ClientRequests.REQUESTS);
        ClientRequests.Throttling t = report.section(ClientRequests.THROTTLING);
        return new Progress("done", ReportBuilder.round(w.warmupSeconds() + w.seconds()), w.warmupSeconds(),
                w.seconds(), planned(), plannedCycles(), o.creates(), o.deletes(), o.failures(), o.inFlightAtEnd(),
                o.opsPerSecond(), recentRate(), q.totalIncludingCleanup(), copy.isEmpty() ? t.throttled()
                : copy.get(copy.size() - 1).throttled(), t.waitSeconds(), copy,
                report.section(OperationStages.STAGES), sharedLine(report.section(
                dev.provbench.measure.SharedCluster.SHARED_WITH)), bulkLine(report.section(
                dev.provbench.measure.BulkWave.BULK)));
    }

    private static String bulkLine(dev.provbench.measure.BulkWave.Bulk b) {
        return b == null ? null : "done: " + b.summary();
    }

    private static String sharedLine(dev.provbench.measure.SharedCluster.SharedWith s) {
        return s == null || !Boolean.TRUE.equals(s.shared()) ? null : s.summary();
    }

    private Double planned() {
        return checked.config().cycles() == 0 && checked.config().count() == 0
                ? checked.config().duration().toNanos() / 1e9 : null;
    }

    private Long plannedCycles() {
        return checked.config().cycles() == 0 ? null : checked.config().cycles();
    }

    /** The run's progress line, as {@code provbench run} prints it every interval. */
    String progressLine() {
        Progress p = progress();
        if (p == null) {
            return null;
        }
        return String.format(java.util.Locale.ROOT, "[%6.0fs %-7s] creates %d  deletes %d  failures %d  ops/s %.2f "
                        + "(window %s)  in flight %d  requests %d  throttled %d%s", p.elapsedSeconds(), p.phase(),
                p.creates(), p.deletes(), p.failures(), p.recentOpsPerSecond(),
                p.opsPerSecond() == null ? "not open" : String.format(java.util.Locale.ROOT, "%.2f", p.opsPerSecond()),
                p.inFlight(), p.requests(), p.throttled(), p.bulk() == null ? "" : "  wave " + p.bulk());
    }
}
