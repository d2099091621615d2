package dev.provbench.load;

import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One load run's phases: <b>prepare</b> (the waits' list-watches: also the check that the cluster answers),
 * <b>warmup</b> (a timed window's: until every worker has ended one cycle, or a fixed time, capped by
 * {@code warmupMax}), <b>window</b> (what the report measures), <b>drain</b> (running ops finish, bounded),
 * <b>cleanup</b> (whatever the run created is deleted). What the workers do is the {@link Workload}'s
 * ({@code --mode}, {@link Workloads}); the run owns the threads, the phases, abort, and the once-a-second round of
 * the reaper and the {@link Stall} judge. All phases are driven from the thread that calls {@link #execute}; the
 * {@link Listener} hears the window's edges on that thread, right after {@link OpLog} stamped them.
 */
public final class LoadRun implements Signals {

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
    private final Workload workload;
    private volatile boolean stopping;
    private volatile boolean aborted;
    /** Why the run stopped on its own (a {@link Stall} verdict), or null. */
    private volatile String stopped;
    private final List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    private Stall stall;
    private volatile Phase phase = Phase.PREPARE;
    private final List<Thread> workers = new ArrayList<>();
    private volatile boolean roundsStop;
    private volatile OpLog log;
    private final Stamps stamps = new Stamps();
    private final Tenants tenants;
    private final Reaper reaper;
    private volatile Waits waits;
    private ClaimOps claims;
    private MeterRegistry registry;
    private volatile Population.Result population;
    private volatile Population.Removal populationRemoval;
    private final RunNamespaces namespaces;
    /** The namespaces {@link #prepare} made (removed by the cleanup). */
    private volatile List<String> madeNamespaces = List.of();

    /** @param runId the value of {@link RunConfig#LABEL} on this run's claims, and part of their names */
    public LoadRun(String runId, RunConfig config, KubernetesClient client, RequestStats stats, Clock clock) {
        this.config = config;
        this.client = client;
        this.stats = stats;
        this.clock = clock;
        this.runId = runId;
        this.workload = Workloads.of(config);
        this.namespaces = RunNamespaces.of(config);
        this.tenants = new Tenants(namespaces, runId, config.storageClass());
        this.reaper = new Reaper(client, stats, namespaces, config.opTimeout());
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

    @Override
    public boolean stopping() {
        return stopping;
    }

    @Override
    public boolean cut() {
        return aborted || stopped != null;
    }

    public RunConfig config() {
        return config;
    }

    /** Why {@link #prepare} failed, said in full (the run did not start). */
    public static final class NotPrepared extends Exception {
        NotPrepared(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Deletes the namespaces a run that could not start made; what to say if some may remain ("" if none). */
    private String removeMade(List<String> made) {
        return made.isEmpty() || RunNamespaces.delete(client, made) ? "" : "; namespace(s) " + String.join(", ", made)
                + " made by the run may remain: 'provbench cleanup --run-id " + runId + " " + namespaces.flags()
                + "' removes them";
    }

    /** The run's waits and their list-watches; null before {@link #prepare}. */
    public Waits waits() {
        return waits;
    }

    /** Where the run's claims go. */
    public RunNamespaces namespaces() {
        return namespaces;
    }

    /** The namespaces the run made for its claims (removed by its cleanup). */
    public List<String> madeNamespaces() {
        return madeNamespaces;
    }

    public String runId() {
        return runId;
    }

    /** What the run's workers do ({@code --mode}). */
    public Workload workload() {
        return workload;
    }

    /** The standing population made before the run ({@code --population}), or null. */
    public Population.Result population() {
        return population;
    }

    public void population(Population.Result r) {
        population = r;
    }

    /** What removing the population after the run did, or null (kept, or none). */
    public Population.Removal populationRemoval() {
        return populationRemoval;
    }

    public void populationRemoved(Population.Removal r) {
        populationRemoval = r;
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
     * Stops starting new work; running operations may finish for the abort grace (and never past the op
     * timeout), then their waits are interrupted and cleanup runs.
     */
    public void abort() {
        aborted = true;
        stopping = true;
    }

    public boolean aborted() {
        return aborted;
    }

    /**
     * Makes the run's namespaces that do not exist ({@link RunNamespaces#create}) and starts the informers (this is
     * also the check that the cluster answers).
     */
    public void prepare() throws Exception {
        List<String> made = new ArrayList<>();
        try {
            namespaces.create(client, runId, made);
        } catch (RuntimeException e) {
            throw new NotPrepared("cannot make the run's namespaces (" + namespaces + ") at " + client.getMasterUrl()
                    + ": " + (e instanceof KubernetesClientException k ? ApiErrors.describe(k) : e.getMessage())
                    + removeMade(made), e);
        }
        madeNamespaces = List.copyOf(made);
        try {
            waits = new Waits(client, stats, namespaces, runId, config.waitMode(), Duration.ofSeconds(60), stamps,
                    tenants);
        } catch (Exception e) {
            String left = removeMade(made);
            if (!left.isEmpty()) {
                throw new NotPrepared("cannot watch PVCs and PVs at " + client.getMasterUrl() + ": " + e + left, e);
            }
            throw e;
        }
        claims = new ClaimOps(config, runId, client, stats, waits, stamps, reaper, stall, this);
    }

    /** Intervals of the time series the run can span: warm-up, window, drain, plus one. */
    public int intervals() {
        long step = config.interval().toNanos();
        long window = config.cycles() > 0 || !workload.timedWindow() ? Duration.ofHours(24).toNanos()
                : config.duration().toNanos();
        long span = config.warmupLimit().toNanos() + window + 2 * config.opTimeout().toNanos() + 10_000_000_000L;
        return (int) Math.min(100_000, span / step + 2);
    }

    public Outcome execute(Listener listener) throws Exception {
        if (waits == null) {
            prepare();
        }
        int threads = workload.workers();
        long startNanos = System.nanoTime();
        boolean timed = workload.timedWindow();
        log = new OpLog(clock.instant(), startNanos, config.interval().toNanos(), intervals(), threads,
                timed && config.autoWarmup()).withMetrics(registry);
        claims.log(log);
        reaper.use(waits, log);
        WorkContext ctx = new WorkContext(config, runId, client, stats, waits, stamps, log, claims, stall, this);
        CountDownLatch finished = new CountDownLatch(threads);
        listener.runStart(log.window(), config.interval().toNanos(), intervals());
        phase = Phase.WARMUP;
        boolean noWarmup = !timed || !config.autoWarmup() && config.warmup().isZero();
        RunWindow w = null;
        if (noWarmup) { // before any worker starts: every op and every request belongs to the window
            w = log.openWindowAtRunStart();
            phase = Phase.WINDOW;
            listener.windowStart(w);
        }
        workload.begin(ctx);
        Thread rounds = new Thread(this::rounds, "provbench-reaper");
        rounds.setDaemon(true);
        rounds.start();
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread t = new Thread(() -> {
                try {
                    workload.work(index, ctx);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
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
        long deadline = config.cycles() > 0 || !timed ? Long.MAX_VALUE
                : w.windowStartNanos() + config.duration().toNanos();
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
        workload.end();
        roundsStop = true;
        rounds.interrupt();
        rounds.join(10_000);
        phase = Phase.CLEANUP;
        RunCleanup.Result cleanup = new RunCleanup(client, namespaces, runId, config.cleanupTimeout()).run();
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

    /** Once a second until the cleanup: the stall judge's look, then the reaper's round. */
    private void rounds() {
        while (!roundsStop) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            judgeStall(now);
            reaper.round(now, () -> roundsStop);
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
}
