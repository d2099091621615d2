package dev.provbench.load;

import dev.provbench.kube.Failures;
import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One closed-loop load run: {@code threads} workers each create a claim, wait until it is Bound, delete it and
 * wait until its volume is gone, until the window's duration or cycle count is reached; then whatever this
 * run created is deleted. A create op completes at Bound, a delete op when the PV object is gone.
 *
 * <p>Phases, all driven from the thread that calls {@link #execute}: <b>warmup</b> (until every worker has
 * ended one cycle, or a fixed time, capped by {@code warmupMax}), <b>window</b> (what the report measures),
 * <b>drain</b> (running cycles finish, bounded), <b>cleanup</b>. The {@link Listener} hears the window's edges
 * on that thread, right after {@link OpLog} stamped them.
 */
public final class LoadRun {

    /** What the run does now. */
    public enum Phase { PREPARE, WARMUP, WINDOW, DRAIN, CLEANUP, DONE;

        public String json() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Hears the run's start and the window's edges (measurements read their sources there). */
    public interface Listener {
        /** The workers are about to start; the time series is {@code intervals} steps of {@code stepNanos}. */
        void runStart(RunWindow window, long stepNanos, int intervals);

        void windowStart(RunWindow window);

        void windowEnd(RunWindow window);
    }

    /**
     * How the run ended; {@code drainEndNanos} is when the cleanup started. {@code stopped}: why the run ended
     * early on its own ({@link Stall}), else null; {@code warnings}: what {@link Stall} said without stopping it.
     */
    public record Outcome(RunWindow window, long drainEndNanos, RunCleanup.Result cleanup, double cleanupSeconds,
                          boolean aborted, String stopped, List<String> warnings) {
    }

    private final RunConfig config;
    private final KubernetesClient client;
    private final RequestStats stats;
    private final Clock clock;
    private final String runId;
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong windowCycles = new AtomicLong();
    private final AtomicLong cyclesEnded = new AtomicLong();
    /** Permits to start: one per worker, handed out by {@link #ramp}. */
    private final java.util.concurrent.Semaphore starts = new java.util.concurrent.Semaphore(0);
    private volatile boolean stopping;
    private volatile boolean aborted;
    /** Why the run stopped on its own (a {@link Stall} verdict), or null. */
    private volatile String stopped;
    private final List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(LoadRun.class);
    /** How many failed ops a run logs one line for (the report counts them all, by cause). */
    static final int FAILURES_LOGGED = 10;
    private final AtomicLong failuresLogged = new AtomicLong();
    private Stall stall;
    private volatile Phase phase = Phase.PREPARE;
    private final List<Thread> workers = new ArrayList<>();
    /** Claims of failed creates for the reaper: name → until when to look for it. */
    private final Map<String, Long> abandoned = new ConcurrentHashMap<>();
    private volatile boolean reaperStop;
    /** How long after a failed create the reaper looks for its claim, on top of the op timeout. */
    static final Duration REAP_FOR = Duration.ofSeconds(30);
    /** How long a create waits before it sends its POST again after a connection error. */
    static final Duration RESEND_AFTER = Duration.ofMillis(250);
    private volatile OpLog log;
    private final Stamps stamps = new Stamps();
    private final Tenants tenants;
    private Waits waits;
    private ClaimRequests claims;
    private MeterRegistry registry;

    /** @param runId the value of {@link RunConfig#LABEL} on this run's claims, and part of their names */
    public LoadRun(String runId, RunConfig config, KubernetesClient client, RequestStats stats, Clock clock) {
        this.config = config;
        this.client = client;
        this.stats = stats;
        this.clock = clock;
        this.runId = runId;
        this.tenants = new Tenants(config.namespace(), runId, config.storageClass());
    }

    /** Publish live operation metrics to this registry. */
    public LoadRun withMetrics(MeterRegistry registry) {
        this.registry = registry;
        return this;
    }

    /** Judge early whether the cluster serves this run at all ({@link Stall}); a cluster run's. */
    public LoadRun withStall(Stall stall) {
        this.stall = stall;
        return this;
    }

    /** Why the run stopped on its own, or null. */
    public String stopped() {
        return stopped;
    }

    /** Whether workers must stop at once: aborted, or stopped on its own. */
    private boolean cut() {
        return aborted || stopped != null;
    }

    public RunConfig config() {
        return config;
    }

    public String runId() {
        return runId;
    }

    /** Null until the run has started. */
    public OpLog log() {
        return log;
    }

    public Phase phase() {
        return phase;
    }

    /** The PVs of other claims of the run's provisioner, as its PV watch sees them (informer mode). */
    public Tenants tenants() {
        return tenants;
    }

    /** Whether the run sees other tenants' PVs: its PV watch runs (informer mode). */
    public boolean watchesVolumes() {
        return config.waitMode() != RunConfig.WaitMode.POLL;
    }

    /** When each step of each op happened, as this run saw it. */
    public Stamps stamps() {
        return stamps;
    }

    /**
     * Stops starting new cycles; running operations may finish for the abort grace (and never past the op
     * timeout), then their waits are interrupted and cleanup runs.
     */
    public void abort() {
        aborted = true;
        stopping = true;
    }

    public boolean aborted() {
        return aborted;
    }

    /** Starts the informers (this is also the check that the cluster answers). */
    public void prepare() throws Exception {
        claims = new ClaimRequests(client, claim("pb-" + runId));
        waits = new Waits(client, stats, config.namespace(), runId, config.waitMode(), Duration.ofSeconds(60), stamps,
                tenants);
    }

    /** Intervals of the time series the run can span: warm-up, window, drain, plus one. */
    public int intervals() {
        long step = config.interval().toNanos();
        long window = config.cycles() > 0 ? Duration.ofHours(24).toNanos() : config.duration().toNanos();
        long span = config.warmupLimit().toNanos() + window + 2 * config.opTimeout().toNanos() + 10_000_000_000L;
        return (int) Math.min(100_000, span / step + 2);
    }

    public Outcome execute(Listener listener) throws Exception {
        if (waits == null) {
            prepare();
        }
        long startNanos = System.nanoTime();
        log = new OpLog(clock.instant(), startNanos, config.interval().toNanos(), intervals(), config.threads(),
                config.autoWarmup()).withMetrics(registry);
        CountDownLatch finished = new CountDownLatch(config.threads());
        listener.runStart(log.window(), config.interval().toNanos(), intervals());
        phase = Phase.WARMUP;
        boolean noWarmup = !config.autoWarmup() && config.warmup().isZero();
        RunWindow w = null;
        if (noWarmup) { // before any worker starts: every cycle and every request belongs to the window
            w = log.openWindowAtRunStart();
            phase = Phase.WINDOW;
            listener.windowStart(w);
        }
        Thread ramp = null;
        if (config.ramp() != null && config.ramp().isZero()) {
            starts.release(config.threads());
        } else {
            starts.release(1);
            ramp = new Thread(() -> ramp(System.nanoTime()), "provbench-ramp");
            ramp.setDaemon(true);
            ramp.start();
        }
        Thread reaper = new Thread(this::reap, "provbench-reaper");
        reaper.setDaemon(true);
        reaper.start();
        for (int i = 0; i < config.threads(); i++) {
            int index = i;
            Thread t = new Thread(() -> {
                try {
                    work(index);
                } finally {
                    finished.countDown();
                }
            }, "provbench-worker-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        if (!noWarmup) {
            w = warmup(startNanos, finished);
            phase = Phase.WINDOW;
            listener.windowStart(w);
        }
        long deadline = config.cycles() > 0 ? Long.MAX_VALUE : w.windowStartNanos() + config.duration().toNanos();
        while (!cut() && System.nanoTime() < deadline) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (finished.await(Math.max(1, Math.min(100, left)), TimeUnit.MILLISECONDS)) {
                break;
            }
        }
        stopping = true;
        w = log.closeWindow();
        phase = Phase.DRAIN;
        listener.windowEnd(w);
        // let running operations finish (counted as after the window), bounded by the op timeout; after an
        // abort (DELETE, SIGTERM) only for the abort grace: then every wait — for a token, for Bound, for the PV
        // to go — is cut, and cleanup finds whatever was created by its label anyway
        long drainDeadline = System.nanoTime() + config.opTimeout().toNanos() * 2 + 5_000_000_000L;
        long graceDeadline = Long.MAX_VALUE;
        while (!finished.await(100, TimeUnit.MILLISECONDS)) {
            if (cut() && graceDeadline == Long.MAX_VALUE) { // a stop (Stall) cuts at once: nothing would come
                graceDeadline = System.nanoTime() + (aborted ? config.abortGrace().toNanos() : 0);
            }
            if (System.nanoTime() > Math.min(drainDeadline, graceDeadline)) {
                workers.forEach(Thread::interrupt);
                finished.await(10, TimeUnit.SECONDS);
                break;
            }
        }
        long drainEnd = System.nanoTime();
        if (ramp != null) {
            ramp.interrupt();
            ramp.join(10_000);
        }
        reaperStop = true;
        reaper.interrupt();
        reaper.join(10_000);
        phase = Phase.CLEANUP;
        RunCleanup.Result cleanup = new RunCleanup(client, config.namespace(), runId, config.cleanupTimeout()).run();
        double cleanupSeconds = (System.nanoTime() - drainEnd) / 1e9;
        waits.close();
        phase = Phase.DONE;
        return new Outcome(w, drainEnd, cleanup, cleanupSeconds, aborted, stopped, List.copyOf(warnings));
    }

    /** Waits for the window to open: auto (every worker ended one cycle), fixed, capped, or cut short. */
    private RunWindow warmup(long startNanos, CountDownLatch finished) throws InterruptedException {
        long limit = startNanos + config.warmupLimit().toNanos();
        var opened = log.windowOpened().toCompletableFuture();
        while (!cut() && finished.getCount() > 0) {
            long left = limit - System.nanoTime();
            if (left <= 0) {
                return log.openWindow(config.autoWarmup()); // auto: capped; fixed: its time is up
            }
            try {
                return opened.get(Math.min(left, 100_000_000L), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // look at abort and the workers again
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
        return log.openWindow(false);
    }

    /**
     * Hands out the workers' start permits (the first was handed out before): auto — one more each time a cycle
     * ends, and at least one per warm-up cap / (2 · threads), so a pipeline that does not end cycles still gets
     * every worker within half the cap; fixed — evenly over {@code ramp}. At full load cycles end at the
     * pipeline's rate, so the auto starts spread over about one cycle time, and the closed loop keeps them
     * spread: the window sees a mix of creates and deletes, not the waves of 64 workers started together.
     */
    private void ramp(long t0) {
        int threads = config.threads();
        long floorStep = Math.max(1, config.warmupMax().toNanos() / (2L * threads));
        int released = 1;
        while (released < threads && !stopping) {
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

    private void work(int index) {
        try {
            while (!starts.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                if (stopping) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        while (!stopping) {
            if (config.cycles() > 0 && log.window().opened() && windowCycles.incrementAndGet() > config.cycles()) {
                return;
            }
            try {
                cycle(index);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private PersistentVolumeClaim claim(String name) {
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName(name).withNamespace(config.namespace())
                .addToLabels(RunConfig.LABEL, runId).endMetadata()
                .withNewSpec().withStorageClassName(config.storageClass())
                .withAccessModes(config.accessMode())
                .withNewResources().addToRequests("storage", new Quantity(config.size())).endResources()
                .endSpec().build();
    }

    private void cycle(int worker) throws InterruptedException {
        String name = "pb-" + runId + "-" + sequence.incrementAndGet();
        long deadline = System.nanoTime() + config.opTimeout().toNanos();
        log.started();
        try {
            String volume = create(name, deadline);
            if (volume != null) {
                delete(name, volume);
            }
        } finally {
            log.cycleEnded(worker);
            cyclesEnded.incrementAndGet();
        }
    }

    private static Duration until(long deadline) {
        return Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
    }

    /**
     * Creates the claim and waits for Bound; returns its volume, or null after a failure (recorded). A create
     * whose answer was lost (no answer, a 5xx, a 409 for our own fresh name) is looked up: a claim that exists
     * is adopted (the op completes at Bound, counted {@code recovered}); after a connection error (closed,
     * reset) the POST is sent once more under the same name ({@code CREATE_RETRY}); else the op is a failure,
     * and its name is handed to the reaper in case the write lands later. A claim that never got Bound is
     * deleted by the reaper, not left for the cleanup.
     */
    private String create(String name, long deadline) throws InterruptedException {
        long t0 = System.nanoTime();
        long queue;
        long firstSent = 0; // t0 + the first POST's token wait
        boolean recovered = false;
        boolean resent = false;
        if (stall != null) {
            stall.createSent();
        }
        while (true) {
            try {
                String uid = claims.create(name);
                long answered = System.nanoTime();
                queue = stats.lastWaitNanos();
                // sent again: the stamps of the first POST, whose answer was lost
                stamps.createSent(name, t0, resent ? firstSent : t0 + queue, resent ? 0 : answered, uid);
                break;
            } catch (KubernetesClientException e) {
                queue = stats.lastWaitNanos();
                if (!resent) {
                    firstSent = t0 + queue;
                }
                String cause = stats.failed(e);
                if (stall != null) {
                    stall.createFailed(e);
                }
                boolean unknown = e.getCode() == 409 || Failures.outcomeUnknown(e);
                if (unknown && exists(name)) {
                    recovered = true;
                    stamps.createSent(name, t0, firstSent, 0, null);
                    break;
                }
                // a connection that broke under the POST (closed, reset) and no claim: sent again once, as
                // client-go's transport resends a request its reused connection lost; a 409 then is our first
                // POST landing late, and the claim is adopted
                if (!resent && Failures.CONNECTION_ERROR.equals(cause) && !cut()
                        && System.nanoTime() + RESEND_AFTER.toNanos() < deadline) {
                    resent = true;
                    log.event(OpLog.Event.CREATE_RETRY);
                    Thread.sleep(RESEND_AFTER.toMillis());
                    continue;
                }
                failed(name, "create:" + cause, e);
                stamps.forget(name);
                if (e.getCode() != 409 && unknown) {
                    abandon(name);
                }
                backoff();
                return null;
            }
        }
        try {
            String volume = waits.awaitBound(name, until(deadline));
            if (stall != null) {
                stall.served();
            }
            long end = System.nanoTime();
            // one record per completed op; a create whose first answer was lost has no stages (Stamps.Op.answerLost)
            stamps.completed(name, true, end, log.completed(OpLog.Kind.CREATE, t0, queue, recovered, end));
            return volume;
        } catch (TimeoutException e) {
            failed(name, "create:timeout", e);
            stamps.forget(name);
            abandon(name);
        } catch (IllegalStateException e) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            failed(name, "create:" + e.getClass().getSimpleName(), e);
            stamps.forget(name);
            abandon(name);
            backoff();
        }
        return null;
    }

    /** Whether our claim exists after a create whose answer was lost (false if that cannot be told). */
    private boolean exists(String name) {
        try {
            Views.Claim c = waits.lookup(name);
            return c != null && !c.deleting() && runId.equals(c.runLabel());
        } catch (KubernetesClientException e) {
            stats.failed(e);
            return false;
        }
    }

    /**
     * Deletes the claim and waits for its PV to be gone. A failed DELETE is sent again (deletes are
     * idempotent: a claim already gone is success) with backoff until the op's deadline.
     */
    private void delete(String name, String volume) throws InterruptedException {
        long t1 = System.nanoTime();
        long deadline = t1 + config.opTimeout().toNanos();
        long queue = -1;
        long pause = 250;
        String handle = waits.handleOf(volume);
        if (handle != null) {
            stamps.handle(name, handle);
        }
        while (true) {
            try {
                claims.delete(name);
                long answered = System.nanoTime();
                if (queue < 0) {
                    queue = stats.lastWaitNanos();
                }
                stamps.deleteSent(name, t1, t1 + queue, answered); // after retries: the answer that took
                break;
            } catch (KubernetesClientException e) {
                if (queue < 0) {
                    queue = stats.lastWaitNanos();
                }
                String cause = stats.failed(e);
                if (cut() || System.nanoTime() + pause * 1_000_000L > deadline) {
                    failed(name, "delete:" + cause, e);
                    stamps.forget(name);
                    abandon(name);
                    return;
                }
                log.event(OpLog.Event.DELETE_RETRY);
                Thread.sleep(pause);
                pause = Math.min(4000, pause * 2);
            }
        }
        try {
            waits.awaitGone(volume, until(deadline));
            long end = System.nanoTime();
            stamps.completed(name, false, end, log.completed(OpLog.Kind.DELETE, t1, queue, false, end));
        } catch (TimeoutException e) {
            failed(name, "delete:timeout", e);
            stamps.forget(name);
        } catch (IllegalStateException e) {
            stamps.forget(name);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            failed(name, "delete:" + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * A failed op: counted by the op log, and the run's first {@link #FAILURES_LOGGED} are logged with the claim,
     * the cause and what the client saw (an API server's Status message, bounded), so a failed run says why.
     */
    private void failed(String name, String cause, Exception e) {
        log.failed(cause);
        long n = failuresLogged.incrementAndGet();
        if (n <= FAILURES_LOGGED) {
            String what = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            if (what.length() > 300) {
                what = what.substring(0, 300) + "…";
            }
            LOG.warnf("run %s: op failed (%s) on claim %s: %s%s", runId, cause, name, what.replace('\n', ' '),
                    n == FAILURES_LOGGED ? " (further failures are counted, not logged)" : "");
        }
    }

    /** The reaper deletes this claim if it exists (or appears) before {@link #REAP_FOR} has passed. */
    private void abandon(String name) {
        abandoned.put(name, System.nanoTime() + REAP_FOR.toNanos() + config.opTimeout().toNanos());
    }

    /**
     * Once a second until the cleanup: every abandoned claim the informer shows (or, in poll mode, every one)
     * gets a DELETE; a claim that was deleted, or did not appear in time, leaves the list.
     */
    private void reap() {
        while (!reaperStop) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            judgeStall(now);
            for (var it = abandoned.entrySet().iterator(); it.hasNext() && !reaperStop; ) {
                var e = it.next();
                if (now > e.getValue()) {
                    it.remove(); // never appeared: the cleanup's final LIST has the last word
                    continue;
                }
                if (!waits.shows(e.getKey())) {
                    continue;
                }
                try {
                    if (!client.persistentVolumeClaims().inNamespace(config.namespace()).withName(e.getKey())
                            .delete().isEmpty()) {
                        log.event(OpLog.Event.RECLAIMED);
                        it.remove();
                    }
                } catch (KubernetesClientException x) {
                    stats.failed(x); // try again next round
                }
            }
        }
    }

    /** The {@link Stall}'s look, from the reaper's round: a stop verdict ends the run as an abort would. */
    private void judgeStall(long now) {
        String kept = waits == null ? null : waits.kept();
        if (kept != null && stopped == null && !aborted) {
            String[] k = kept.split(" ", 2);
            stopped = "PersistentVolume '" + k[0] + "' of one of the run's claims has persistentVolumeReclaimPolicy "
                    + k[1] + ", not Delete (its StorageClass '" + config.storageClass() + "' says otherwise, so "
                    + "something else set it — a mutating webhook or policy): csi-provisioner never deletes such a "
                    + "PV after its claim, so no delete of the run could complete, and each cycle would leave a PV "
                    + "and a volume";
            stopping = true;
            return;
        }
        if (stall == null || stopped != null || aborted) {
            return;
        }
        try {
            Stall.Verdict v = stall.look(now);
            if (v == null) {
                return;
            }
            if (v.stop()) {
                stopped = v.cause();
                stopping = true;
            } else {
                warnings.add(v.cause());
            }
        } catch (RuntimeException e) {
            warnings.add("could not judge whether the cluster serves the run: " + e); // the run goes on
        }
    }

    private void backoff() throws InterruptedException {
        if (!stopping) {
            Thread.sleep(1000);
        }
    }
}
