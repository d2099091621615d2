package dev.provbench.load;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code --mode churn} (the default), a closed loop: each of {@code threads} workers creates a claim, waits until it
 * is Bound, deletes it and waits until its volume is gone, again and again until the run's window ends (its
 * duration, or {@code --cycles} cycles). A create op completes at Bound, a delete op when the PV object is gone.
 *
 * <p>The workers start by the ramp ({@link #ramp}), so the window sees a mix of creates and deletes, not the waves of
 * 64 workers started together.
 */
final class ChurnWorkload implements Workload {
    static final String NAME = "churn";

    private final RunConfig config;
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong windowCycles = new AtomicLong();
    private final AtomicLong cyclesEnded = new AtomicLong();
    /** Permits to start: one per worker, handed out by {@link #ramp}. */
    private final Semaphore starts = new Semaphore(0);
    private Thread ramp;
    private volatile boolean rampStop;

    ChurnWorkload(RunConfig config) {
        this.config = config;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int workers() {
        return config.threads();
    }

    @Override
    public boolean timedWindow() {
        return true;
    }

    @Override
    public String describe() {
        return config.threads() + " workers";
    }

    @Override
    public void begin(WorkContext ctx) {
        if (config.ramp() != null && config.ramp().isZero()) {
            starts.release(config.threads());
            return;
        }
        starts.release(1);
        long t0 = System.nanoTime();
        ramp = new Thread(() -> ramp(t0, ctx.signals()), "provbench-ramp");
        ramp.setDaemon(true);
        ramp.start();
    }

    @Override
    public void end() {
        if (ramp != null) {
            rampStop = true;
            ramp.interrupt();
            try {
                ramp.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Hands out the workers' start permits (the first was handed out before): auto — one more each time a cycle
     * ends, and at least one per warm-up cap / (2 · threads), so a pipeline that does not end cycles still gets
     * every worker within half the cap; fixed — evenly over {@code ramp}. At full load cycles end at the
     * pipeline's rate, so the auto starts spread over about one cycle time, and the closed loop keeps them
     * spread.
     */
    private void ramp(long t0, Signals signals) {
        int threads = config.threads();
        long floorStep = Math.max(1, config.warmupMax().toNanos() / (2L * threads));
        int released = 1;
        while (released < threads && !signals.stopping() && !rampStop) {
            long elapsed = System.nanoTime() - t0;
            long target = config.autoRamp() ? 1 + cyclesEnded.get() + elapsed / floorStep
                    : 1 + (long) (elapsed / (double) config.ramp().toNanos() * threads);
            int now = (int) Math.min(threads, target);
            if (now > released) {
                starts.release(now - released);
                released = now;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void work(int index, WorkContext ctx) throws InterruptedException {
        while (!starts.tryAcquire(100, TimeUnit.MILLISECONDS)) {
            if (ctx.signals().stopping()) {
                return;
            }
        }
        while (!ctx.signals().stopping()) {
            if (config.cycles() > 0 && ctx.log().window().opened() && windowCycles.incrementAndGet() > config.cycles()) {
                return;
            }
            cycle(index, ctx);
        }
    }

    private void cycle(int worker, WorkContext ctx) throws InterruptedException {
        String name = ctx.claims().name(sequence.incrementAndGet());
        long deadline = System.nanoTime() + config.opTimeout().toNanos();
        ctx.log().started();
        try {
            String volume = create(name, deadline, ctx);
            if (volume != null) {
                delete(name, volume, ctx);
            }
        } finally {
            ctx.log().cycleEnded(worker);
            cyclesEnded.incrementAndGet();
        }
    }

    private static Duration until(long deadline) {
        return Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
    }

    /**
     * Creates the claim and waits for Bound; returns its volume, or null after a failure (recorded). A claim that
     * never got Bound is deleted by the reaper, not left for the cleanup.
     */
    private String create(String name, long deadline, WorkContext ctx) throws InterruptedException {
        ClaimOps claims = ctx.claims();
        ClaimOps.Sent sent = claims.create(name, deadline);
        if (sent == null) {
            claims.backoff();
            return null;
        }
        try {
            String volume = ctx.waits().awaitBound(name, until(deadline));
            claims.bound(name, sent, System.nanoTime());
            return volume;
        } catch (TimeoutException e) {
            claims.createFailed(name, "create:timeout", e, true);
        } catch (IllegalStateException e) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            claims.createFailed(name, "create:" + e.getClass().getSimpleName(), e, true);
            claims.backoff();
        }
        return null;
    }

    /** Deletes the claim and waits for its PV to be gone. */
    private void delete(String name, String volume, WorkContext ctx) throws InterruptedException {
        ClaimOps claims = ctx.claims();
        ClaimOps.Sent sent = claims.delete(name, volume, System.nanoTime() + config.opTimeout().toNanos());
        if (sent == null) {
            return;
        }
        try {
            ctx.waits().awaitGone(volume, until(sent.t0() + config.opTimeout().toNanos()));
            claims.gone(name, sent, System.nanoTime());
        } catch (TimeoutException e) {
            claims.deleteFailed(name, "delete:timeout", e);
        } catch (IllegalStateException e) {
            if (Thread.interrupted()) {
                claims.forget(name);
                throw new InterruptedException();
            }
            claims.deleteFailed(name, "delete:" + e.getClass().getSimpleName(), e);
        }
    }
}
