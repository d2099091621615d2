package dev.provbench;

import dev.provbench.load.RunConfig;
import dev.provbench.sweep.SweepPlan;

import java.time.Duration;

/**
 * How long a run may take, derived from its own limits (as {@code load.LoadRun} and {@code load.RunCleanup} apply
 * them), never a wall-clock guess: a test that waits for a run's end waits this long, so a loaded machine cannot make
 * it give up on a run that is still within its limits. Speed is a benchmark's question ({@code hack/bench/abort}).
 */
public final class RunBounds {
    /**
     * What the limits do not bound: setting up the local cluster and the informers' first LIST, the measurements'
     * reports, tearing down — each a few seconds on a quiet machine; a minute allows for a 4× oversubscribed one.
     */
    public static final Duration MARGIN = Duration.ofSeconds(60);
    /** {@code LoadRun}: after the grace (or the drain), interrupted workers get this long to stop. */
    static final Duration INTERRUPT = Duration.ofSeconds(10);
    /** {@code LoadRun}: the reaper thread's join. */
    static final Duration REAPER = Duration.ofSeconds(10);

    private RunBounds() {
    }

    /** From an abort to the run's end: the grace, the interrupt, the reaper, the cleanup timeout, the margin. */
    public static Duration afterAbort(RunConfig c) {
        return c.abortGrace().plus(INTERRUPT).plus(REAPER).plus(c.cleanupTimeout()).plus(MARGIN);
    }

    /**
     * From the start to the end of a run that nobody aborts: the warm-up's limit; the window (its duration, or —
     * with cycles — the cycles each worker can start, each at most a create and a delete of op timeout plus their
     * back-off); the drain (2 × op timeout + 5 s); the interrupt, the reaper, the cleanup timeout, the margin.
     */
    public static Duration whole(RunConfig c) {
        Duration cycle = c.opTimeout().multipliedBy(2).plusSeconds(5);
        Duration window = c.cycles() > 0 ? cycle.multipliedBy((c.cycles() + c.threads() - 1) / c.threads() + 1)
                : c.duration();
        return c.warmupLimit().plus(window).plus(c.opTimeout().multipliedBy(2).plusSeconds(5)).plus(INTERRUPT)
                .plus(REAPER).plus(c.cleanupTimeout()).plus(MARGIN);
    }

    /** A sweep's runs one after another, each with its reconfiguration (the plan's control timeout), and the margin. */
    public static Duration sweep(SweepPlan plan) {
        Duration d = MARGIN;
        for (SweepPlan.Planned p : plan.order()) {
            d = d.plus(whole(p.checked().config())).plus(plan.controlTimeout() == null ? Duration.ZERO
                    : plan.controlTimeout());
        }
        return d;
    }
}
