package dev.provbench.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.LoadRun;
import dev.provbench.load.OpLog;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.RunReport;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One load run's life: pending → running → succeeded | failed | aborted, what it is doing now, and its
 * report once it has ended. Its id is also the value of the run's label on every claim it creates.
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

    /** A point of the live series: seconds since the window start, cumulative ops and throttled requests. */
    public record Sample(double t, long ops, long failures, long throttled) {
    }

    /** What a run is doing now (all counts cumulative over the window so far). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Progress(double elapsedSeconds, Double plannedSeconds, Long plannedCycles, long creates,
                           long deletes, long failures, long inFlight, double opsPerSecond,
                           double recentOpsPerSecond, long requests, long throttled, double throttleWaitSeconds,
                           List<Sample> samples) {
    }

    private static final int MAX_SAMPLES = 1200;

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

    synchronized void ended(State s, int code, RunReport r, String why) {
        sample();
        report = r;
        exitCode = code;
        message = why;
        finished = Instant.now();
        state = s;
        run = null;
    }

    /** Records one point of the live series (called every second while running). */
    void sample() {
        LoadRun r = run;
        RequestStats s = stats;
        if (r == null || r.log() == null || s == null) {
            return;
        }
        OpLog log = r.log();
        double t = (System.nanoTime() - log.startNanos()) / 1e9;
        synchronized (samples) {
            samples.add(new Sample(ReportBuilder.round(t), log.creates() + log.deletes(), log.failures(),
                    s.throttled()));
            if (samples.size() > MAX_SAMPLES) { // keep the whole run at half the resolution
                for (int i = samples.size() - 2; i > 0; i -= 2) {
                    samples.remove(i);
                }
            }
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
        if (r == null || r.log() == null || s == null) {
            if (report == null) {
                return null;
            }
            RunReport.Ops o = report.ops();
            return new Progress(report.window().seconds(), planned(), plannedCycles(), o.creates(), o.deletes(),
                    o.failures(), o.inFlightAtEnd(), o.opsPerSecond(), recent(copy), report.requests().total(),
                    report.throttling().throttled(), report.throttling().waitSeconds(), copy);
        }
        OpLog log = r.log();
        double elapsed = (System.nanoTime() - log.startNanos()) / 1e9;
        if (checked.config().cycles() == 0) {
            elapsed = Math.min(elapsed, checked.config().duration().toNanos() / 1e9);
        }
        long ops = log.creates() + log.deletes();
        return new Progress(ReportBuilder.round(elapsed), planned(), plannedCycles(), log.creates(), log.deletes(),
                log.failures(), log.inFlight(), ReportBuilder.round(ops / Math.max(elapsed, 1e-9)), recent(copy),
                s.total(), s.throttled(), ReportBuilder.round(s.waitSeconds()), copy);
    }

    /** ops/s over the last 5 s of samples. */
    private static double recent(List<Sample> samples) {
        if (samples.size() < 2) {
            return 0;
        }
        Sample last = samples.get(samples.size() - 1);
        Sample from = samples.get(0);
        for (int i = samples.size() - 2; i >= 0; i--) {
            from = samples.get(i);
            if (last.t() - from.t() >= 5) {
                break;
            }
        }
        return last.t() > from.t() ? ReportBuilder.round((last.ops() - from.ops()) / (last.t() - from.t())) : 0;
    }

    private Double planned() {
        return checked.config().cycles() == 0 ? checked.config().duration().toNanos() / 1e9 : null;
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
        return String.format(java.util.Locale.ROOT, "[%6.0fs] creates %d  deletes %d  failures %d  ops/s %.2f "
                        + "(overall %.2f)  in flight %d  requests %d  throttled %d", p.elapsedSeconds(), p.creates(),
                p.deletes(), p.failures(), p.recentOpsPerSecond(), p.opsPerSecond(), p.inFlight(), p.requests(),
                p.throttled());
    }
}
