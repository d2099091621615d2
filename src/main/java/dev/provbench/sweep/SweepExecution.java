package dev.provbench.sweep;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.provbench.run.RunExecution;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One sweep's life: pending → running → succeeded | failed | aborted (the states of a run), the runs done so
 * far, the run in progress, and the result as it fills in (recomputed after every run).
 */
public final class SweepExecution {
    /**
     * Where a sweep is.
     *
     * @param runsDone   runs ended so far
     * @param etaSeconds estimated time until the sweep ends; null before the first run has ended
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Progress(int runs, int runsDone, Integer seq, Integer cell, String cellLabel, Integer repeat,
                           String currentRunId, Double elapsedSeconds, Double etaSeconds) {
    }

    private final String id;
    private final SweepPlan plan;
    private final Instant created = Instant.now();
    private volatile RunExecution.State state = RunExecution.State.PENDING;
    private volatile Instant started;
    private volatile Instant finished;
    private volatile boolean abortRequested;
    private volatile RunExecution current;
    private volatile SweepPlan.Planned currentPlanned;
    private volatile SweepResult result;
    private volatile String message;
    private volatile int exitCode = -1;
    private final List<SweepResult.Done> done = new ArrayList<>();
    private volatile long lastEndMillis;

    public SweepExecution(SweepPlan plan) {
        this.id = "s" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        this.plan = plan;
    }

    public String id() {
        return id;
    }

    public SweepPlan plan() {
        return plan;
    }

    public RunExecution.State state() {
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

    public SweepResult result() {
        return result;
    }

    public String message() {
        return message;
    }

    public int exitCode() {
        return exitCode;
    }

    public boolean abortRequested() {
        return abortRequested;
    }

    public RunExecution current() {
        return current;
    }

    /** Stops the sweep: the run in progress is aborted (it cleans up and reports), no further run starts. */
    public synchronized boolean abort() {
        if (state.ended()) {
            return false;
        }
        abortRequested = true;
        RunExecution r = current;
        if (r != null) {
            r.abort();
        }
        return true;
    }

    synchronized void begin() {
        started = Instant.now();
        state = RunExecution.State.RUNNING;
    }

    /** Returns false when the sweep was aborted before this run could start. */
    synchronized boolean runStarting(SweepPlan.Planned p, RunExecution e) {
        if (abortRequested) {
            return false;
        }
        current = e;
        currentPlanned = p;
        return true;
    }

    synchronized void runEnded(SweepResult.Done d, SweepResult r) {
        done.add(d);
        lastEndMillis = System.currentTimeMillis();
        current = null;
        currentPlanned = null;
        result = r;
    }

    /** The runs ended so far, in order. */
    public List<SweepResult.Done> doneRuns() {
        return done();
    }

    synchronized List<SweepResult.Done> done() {
        return List.copyOf(done);
    }

    synchronized void ended(RunExecution.State s, int code, SweepResult r, String why) {
        state = s;
        exitCode = code;
        result = r;
        message = why;
        finished = Instant.now();
        current = null;
        currentPlanned = null;
    }

    /**
     * The live view. ETA: the mean time per ended run (reconfiguration included) × the runs not ended, less the
     * time since the last one ended.
     */
    public Progress progress() {
        List<SweepResult.Done> d = done();
        SweepPlan.Planned p = currentPlanned;
        RunExecution r = current;
        Instant s = started;
        long now = System.currentTimeMillis();
        Double elapsed = s == null ? null : (now - s.toEpochMilli()) / 1000.0;
        Double eta = null;
        if (!d.isEmpty() && s != null && !state.ended()) {
            double per = (lastEndMillis - s.toEpochMilli()) / 1000.0 / d.size();
            eta = (double) Math.max(0, Math.round(per * (plan.runs() - d.size()) - (now - lastEndMillis) / 1000.0));
        }
        return new Progress(plan.runs(), d.size(), p == null ? null : p.seq(), p == null ? null : p.cell().index(),
                p == null ? null : p.cell().label(plan.varying()), p == null ? null : p.repeat(),
                r == null ? null : r.id(), elapsed == null ? null : Math.round(elapsed * 10) / 10.0, eta);
    }
}
