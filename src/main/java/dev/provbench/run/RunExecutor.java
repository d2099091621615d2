package dev.provbench.run;

import dev.provbench.csi.CallMetrics;
import dev.provbench.csi.CsiServer;
import dev.provbench.csi.DriverBeans;
import dev.provbench.csi.DriverConfig;
import dev.provbench.csi.FaultInjector;
import dev.provbench.csi.state.VolumeStore;
import dev.provbench.evidence.DriverCounts;
import dev.provbench.evidence.HttpGet;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.Transport;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.LoadRun;
import dev.provbench.load.Population;
import dev.provbench.load.Preflight;
import dev.provbench.load.RunNamespaces;
import dev.provbench.load.RunCleanup;
import dev.provbench.load.RunConfig;
import dev.provbench.load.RunWindow;
import dev.provbench.load.Stall;
import dev.provbench.local.LocalCluster;
import dev.provbench.measure.Measurement;
import dev.provbench.measure.ReportDraft;
import dev.provbench.report.RunReport;
import dev.provbench.util.Durations;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Carries out one {@link RunExecution}: sets up the cluster (or {@code --local}) and the client, drives the
 * measurements through the run's life cycle ({@link Measurement}), and ends the execution with the report and
 * the exit code. Orchestration only: what is measured lives in {@code dev.provbench.measure}, the load in
 * {@code dev.provbench.load}. Used by {@code provbench run} and by the REST API.
 */
@ApplicationScoped
public class RunExecutor {
    // the in-process driver's parts, resolved only by a run that has one (--local, or a run started by serve):
    // a run against a cluster builds none of them, nor loads their classes (gRPC, protobuf, the CSI messages)
    private final Instance<CsiServer> csi;
    private final DriverBeans driver;
    private final DriverConfig driverConfig;
    private final Instance<CallMetrics> callMetrics;
    private final Instance<FaultInjector> injector;
    private final Instance<VolumeStore> store;
    private final MeterRegistry registry;
    private final Scheduler scheduler;
    private final String version;

    public RunExecutor(Instance<CsiServer> csi, DriverBeans driver, DriverConfig driverConfig,
            Instance<CallMetrics> callMetrics, Instance<FaultInjector> injector, Instance<VolumeStore> store,
            MeterRegistry registry, Scheduler scheduler,
            @ConfigProperty(name = "quarkus.application.version", defaultValue = "dev") String version) {
        this.csi = csi;
        this.driver = driver;
        this.driverConfig = driverConfig;
        this.callMetrics = callMetrics;
        this.injector = injector;
        this.store = store;
        this.registry = registry;
        this.scheduler = scheduler;
        this.version = version;
    }

    /** What a run is set up with; closing it stops the clients and the local cluster. */
    private record Setup(LocalCluster cluster, KubernetesClient client, RequestStats stats, LoadRun run,
                         HttpGet evidence) implements AutoCloseable {
        public void close() {
            evidence.close();
            client.close();
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /**
     * Runs {@code e} to its end on the calling thread; {@code say} gets the start line, progress lines and
     * problems. Never throws: whatever goes wrong ends the execution as failed, with a message. The end becomes
     * visible ({@code state}) only after the tear-down, so a client that sees it can start the next run at once.
     */
    public void execute(RunExecution e, Consumer<String> say) {
        Setup s = null;
        try {
            s = setUp(e, say);
            if (s != null) {
                measure(e, s, say);
            }
        } catch (Exception | Error ex) {
            fail(e, "the run failed: " + rootMessage(ex), say);
            if (ex instanceof Error err) {
                throw err;
            }
        } finally {
            try {
                if (s != null) {
                    s.close();
                }
            } finally {
                e.publishEnd();
            }
        }
    }

    private Setup setUp(RunExecution e, Consumer<String> say) throws Exception {
        RunRequest q = e.request();
        LocalCluster cluster = null;
        Config api;
        if (q.local) {
            try {
                cluster = LocalCluster.start(csi.get(), driverConfig.name(),
                        RateLimiter.of(q.localProvisionerQps, q.localProvisionerBurst), q.localProvisionerReads,
                        dev.provbench.util.Durations.parse(q.localApiLatency), registry);
            } catch (Exception ex) {
                fail(e, "cannot start the local cluster: " + rootMessage(ex), say);
                return null;
            }
            api = cluster.api();
        } else {
            api = KubeClients.config(e.checked().kubeconfig());
        }
        RequestStats stats = new RequestStats("provbench", registry);
        Transport transport = Transport.configured();
        if (!q.local) {
            org.jboss.logging.Logger.getLogger(RunExecutor.class).infof("run %s: kube-apiserver over %s", e.id(),
                    transport.describe());
        }
        KubernetesClient client = KubeClients.client(api, RateLimiter.of(q.qps, q.burst), stats, transport);
        LoadRun run = new LoadRun(e.id(), e.checked().config(), client, stats, Clock.systemUTC()).withMetrics(registry);
        return new Setup(cluster, client, stats, run, new HttpGet());
    }

    private void measure(RunExecution e, Setup s, Consumer<String> say) throws Exception {
        String provisioner = driverConfig.name(); // --local: the in-process driver's
        if (!e.request().local) {
            Preflight.Result pre = preflight(e, s, say);
            if (pre == null) {
                return;
            }
            provisioner = pre.provisioner();
            RunConfig cfg = e.checked().config();
            s.run().tenants().driver(pre.provisioner());
            if (!cfg.stallTimeout().isZero()) { // its few LISTs only if it looks: the run's own client
                s.run().withStall(new Stall(s.client(), RunNamespaces.of(cfg), e.id(), cfg.storageClass(), pre.provisioner(),
                        cfg.stallTimeout()));
            }
        }
        if (e.checked().config().population() != null && !populate(e, s, provisioner, say)) {
            return;
        }
        List<Measurement> ms = Measurements.of(e.checked(), new Measurements.Sources(s.run(), s.client(), s.stats(),
                s.evidence(), s.cluster(), s.cluster() != null || driver.serving() ? inProcessDriver() : null,
                s.cluster() != null || driver.serving() ? callMetrics.get().calls() : null));
        for (Measurement m : ms) {
            if (m instanceof dev.provbench.measure.OperationStages st) {
                e.liveStages(st::live);
            }
            if (m instanceof dev.provbench.measure.BulkWave b) {
                e.liveBulk(b::live);
            }
            if (m instanceof dev.provbench.measure.SharedCluster sc) {
                e.liveShared(sc::live);
            }
            m.idle();
        }
        try {
            s.run().prepare();
        } catch (Exception ex) {
            fail(e, ex instanceof LoadRun.NotPrepared ? ex.getMessage() : "cannot watch PVCs and PVs at "
                    + s.client().getMasterUrl() + ": " + rootMessage(ex), say);
            return;
        }
        e.running(s.run(), s.stats());
        say.accept(startLine(e, s.run()));
        String jobs = "provbench-" + e.id();
        schedule(jobs, e, ms, say);
        LoadRun.Outcome o;
        try {
            o = s.run().execute(listener(ms));
        } finally {
            scheduler.unscheduleJob(jobs + "-progress");
            scheduler.unscheduleJob(jobs + "-samples");
        }
        RunConfig cfg = e.checked().config();
        if (cfg.population() != null && !cfg.keepPopulation() && cfg.population() > 0) {
            s.run().populationRemoved(removePopulation(s, cfg, say));
        }
        ms.forEach(m -> m.finish(o.window()));
        ReportDraft draft = new ReportDraft(new ReportDraft.Grid(o.window(), e.checked().config().interval().toNanos(),
                o.drainEndNanos()));
        ms.forEach(m -> m.report(draft));
        if (o.stopped() != null) {
            draft.warn("the run stopped on its own: " + o.stopped());
        }
        o.warnings().forEach(draft::warn);
        if (!o.cleanup().clean() && !e.request().local) {
            draft.warn("cleanup left " + o.cleanup().leftover().size() + " object(s) in the cluster: the run exits 3 "
                    + "whatever its thresholds say");
        }
        RunReport report = draft.build(version, e.request().local ? "local" : "cluster", e.id(),
                dev.provbench.report.JsonFormat.config(e.checked().reported()),
                cleanup(o, e), e.checked().slo());
        end(e, o, s.run().populationRemoval(), report, say);
    }

    /** A client for the population's writes: unlimited and uncounted (they are not the run's requests). */
    private static KubernetesClient populationClient(Setup s) {
        return KubeClients.client(s.client().getConfiguration(), RateLimiter.of(-1, 0),
                new RequestStats("population", null));
    }

    /**
     * {@code --population}: the namespace's population made (or grown, or shrunk) to its size, all Bound, before
     * anything of the run is measured; false when it could not be (the execution ended, exit 3, after what it made
     * was removed unless {@code --keep-population}).
     */
    private boolean populate(RunExecution e, Setup s, String provisioner, Consumer<String> say) {
        RunConfig cfg = e.checked().config();
        try (KubernetesClient c = populationClient(s)) {
            Population p = new Population(c, cfg.namespace(), cfg.storageClass(), provisioner, cfg.size(),
                    cfg.accessMode(), Population.Mode.of(cfg.populationMode()));
            Population.Result r = p.ensure(cfg.population(), say, e::abortRequested);
            if (r.count() > 0 || r.removed() > 0) {
                say.accept(String.format(Locale.ROOT, "population: %d %s claims Bound after %.1f s (found %d, made "
                        + "%d, removed %d)", r.count(), r.mode(), r.seconds(), r.existing(), r.created(), r.removed()));
            }
            s.run().population(r);
            return true;
        } catch (Population.Failed | RuntimeException | InterruptedException ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String why = "population: " + (ex instanceof Population.Failed ? ex.getMessage() : rootMessage(ex));
            if (!cfg.keepPopulation() && !Thread.currentThread().isInterrupted()) {
                Population.Removal gone = removePopulation(s, cfg, say);
                why += gone.clean() ? "; removed what it had made" : "; " + gone.left().size() + " object(s) left: "
                        + "'provbench cleanup --population --namespace " + cfg.namespace() + "' removes them";
            }
            fail(e, why, say);
            return false;
        }
    }

    private static Population.Removal removePopulation(Setup s, RunConfig cfg, Consumer<String> say) {
        try (KubernetesClient c = populationClient(s)) {
            say.accept("population: removing it from namespace " + cfg.namespace());
            return Population.remove(c, cfg.namespace(), cfg.cleanupTimeout());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return new Population.Removal(0, 0, List.of("population of namespace " + cfg.namespace()
                    + ": removal interrupted"), 0);
        } catch (RuntimeException ex) {
            return new Population.Removal(0, 0, List.of("population of namespace " + cfg.namespace() + ": "
                    + rootMessage(ex)), 0);
        }
    }

    /** The report's cleanup: what {@code load.RunCleanup} found, and the command that removes what is left. */
    private static RunReport.Cleanup cleanup(LoadRun.Outcome o, RunExecution e) {
        var leftover = o.cleanup().leftover().stream().map(l -> new RunReport.Leftover(l.kind(), l.name(),
                l.namespace(), l.phase(), l.reason())).toList();
        String command = leftover.isEmpty() ? null : e.request().local
                ? "none needed: the in-memory cluster of --local ended with the run"
                : "provbench cleanup --run-id " + e.id() + " " + RunNamespaces.of(e.checked().config()).flags();
        return new RunReport.Cleanup(o.cleanup().deletedClaims(), leftover,
                Math.round(o.cleanupSeconds() * 1000) / 1000.0, command);
    }

    private static LoadRun.Listener listener(List<Measurement> ms) {
        return new LoadRun.Listener() {
            public void runStart(RunWindow w, long stepNanos, int intervals) {
                ms.forEach(m -> m.runStart(w, stepNanos, intervals));
            }

            public void windowStart(RunWindow w) {
                ms.forEach(m -> m.windowStart(w));
            }

            public void windowEnd(RunWindow w) {
                ms.forEach(m -> m.windowEnd(w));
            }
        };
    }

    /** A progress line every interval; every second a live sample and the measurements' samples. */
    private void schedule(String jobs, RunExecution e, List<Measurement> ms, Consumer<String> say) {
        String interval = e.checked().config().interval().toString(); // ISO-8601, which the scheduler accepts
        scheduler.newJob(jobs + "-progress").setInterval(interval).setDelayed(interval).setTask(x -> {
            String line = e.progressLine();
            if (line != null) {
                say.accept(line);
            }
        }).schedule();
        // SKIP: a source that hangs (a paused process) delays the next sample instead of piling up threads
        scheduler.newJob(jobs + "-samples").setInterval("1s")
                .setConcurrentExecution(io.quarkus.scheduler.Scheduled.ConcurrentExecution.SKIP).setTask(x -> {
            long now = System.nanoTime();
            ms.forEach(m -> m.sample(now));
            e.sample();
        }).schedule();
    }

    /**
     * The state and exit code: aborted (3); stopped on its own, the cluster not serving the run (3); cleanup
     * left objects in a cluster (3, whatever the thresholds said: a CI job must not read success while the
     * cluster holds the run's objects); a threshold failed (1); else 0.
     */
    private static void end(RunExecution e, LoadRun.Outcome o, Population.Removal populationLeft, RunReport report,
            Consumer<String> say) {
        String left = o.cleanup().clean() || e.request().local ? null : "cleanup left "
                + o.cleanup().leftover().size() + " object(s): " + report.cleanup().command();
        Population.Removal pop = e.request().local ? null : populationLeft;
        if (pop != null && !pop.clean()) {
            String more = "the population's removal left " + pop.left().size() + " object(s): 'provbench cleanup "
                    + "--population --namespace " + e.checked().config().namespace() + "' removes them";
            left = left == null ? more : left + "; " + more;
        }
        if (o.aborted()) {
            e.ended(RunExecution.State.ABORTED, ExitCodes.FAILED, report,
                    "aborted; the report covers the time until the abort" + (left == null ? "" : "; " + left));
        } else if (o.stopped() != null) {
            String why = "the run stopped: " + o.stopped() + (left == null ? "" : "; " + left);
            say.accept(why);
            e.ended(RunExecution.State.FAILED, ExitCodes.FAILED, report, why);
        } else if (left != null) {
            say.accept(left);
            e.ended(RunExecution.State.FAILED, ExitCodes.FAILED, report, left);
        } else if (Boolean.FALSE.equals(report.passed())) {
            e.ended(RunExecution.State.FAILED, ExitCodes.THRESHOLD, report, "a threshold failed");
        } else {
            e.ended(RunExecution.State.SUCCEEDED, ExitCodes.OK, report, null);
        }
    }

    /**
     * {@code load.Preflight} with its own unlimited, uncounted client (its few requests are not the run's and
     * must not spend the run's tokens); null when the run cannot work (ended as failed, exit code 3). Claims
     * of earlier runs are listed, or removed first with {@code --cleanup-stale}.
     */
    private Preflight.Result preflight(RunExecution e, Setup s, Consumer<String> say) {
        RunConfig cfg = e.checked().config();
        try (KubernetesClient c = KubeClients.client(s.client().getConfiguration(), RateLimiter.of(-1, 0),
                new RequestStats("preflight", null))) {
            Preflight.Result r = Preflight.check(c, cfg, e.id());
            RunNamespaces spread = RunNamespaces.of(cfg);
            r.warnings().forEach(w -> say.accept("warning: " + w));
            if (r.fatal() != null) {
                fail(e, "preflight: " + r.fatal(), say);
                return null;
            }
            if (r.staleClaims() > 0) {
                java.util.Set<String> active = r.active();
                String runs = String.join(", ", r.staleRuns().keySet());
                if (!active.isEmpty()) {
                    say.accept("warning: run(s) " + String.join(", ", active) + " in namespace " + spread
                            + " made a claim less than " + Durations.format(Preflight.ACTIVE_WITHIN) + " ago and may "
                            + "still be running: this run shares the namespace with them (its figures stay its own: "
                            + "its claims are told by its run ID)");
                }
                if (!e.request().cleanupStale) {
                    say.accept("warning: " + r.staleClaims() + " claim(s) of earlier runs (" + runs + ") are in "
                            + "namespace " + spread + ": 'provbench cleanup --all "
                            + spread.flags() + "' removes them (or run with --cleanup-stale)");
                } else {
                    // a run that may still be running keeps its claims: removing them would break it
                    for (String old : r.staleRuns().keySet()) {
                        if (active.contains(old)) {
                            say.accept("--cleanup-stale: not removing the claims of run " + old + ": it may still "
                                    + "be running ('provbench cleanup --run-id " + old + " "
                                    + spread.flags() + "' removes them once it is not)");
                            continue;
                        }
                        say.accept("removing " + r.staleRuns().get(old) + " claim(s) of earlier run " + old
                                + " first (--cleanup-stale)");
                        RunCleanup.Result gone = new RunCleanup(c, spread, old, cfg.cleanupTimeout())
                                .run();
                        if (!gone.clean()) {
                            fail(e, "--cleanup-stale: " + gone.leftover().size() + " object(s) of earlier runs "
                                    + "remain: " + gone.leftover().get(0) + (gone.leftover().size() > 1 ? ", …" : ""),
                                    say);
                            return null;
                        }
                    }
                }
            }
            return r;
        }
    }

    private static void fail(RunExecution e, String why, Consumer<String> say) {
        say.accept(why);
        e.ended(e.abortRequested() ? RunExecution.State.ABORTED : RunExecution.State.FAILED, ExitCodes.FAILED,
                null, why);
    }

    private static String startLine(RunExecution e, LoadRun run) {
        RunConfig cfg = e.checked().config();
        RunRequest q = e.request();
        String shape = "bulk".equals(cfg.mode()) ? String.format(Locale.ROOT, "bulk: %s, op timeout %s",
                run.workload().describe(), Durations.format(cfg.opTimeout()))
                : String.format(Locale.ROOT, "%d workers, warm-up %s, window %s", cfg.threads(),
                cfg.autoWarmup() ? "auto (≤ " + Durations.format(cfg.warmupMax()) + ")" : Durations.format(cfg.warmup()),
                cfg.cycles() > 0 ? cfg.cycles() + " cycles" : Durations.format(cfg.duration()));
        String made = run.madeNamespaces().isEmpty() ? "" : " (" + run.madeNamespaces().size() + " made for the run)";
        return String.format(Locale.ROOT, "provbench run %s: %s, storage class %s, namespace%s %s%s, qps/burst %s%s",
                e.id(), shape, cfg.storageClass(), cfg.namespaces() > 1 ? "s" : "", run.namespaces(), made,
                q.qps < 0 ? "unlimited" : fmt(q.qps) + "/" + q.burst, q.local ? " (local)" : "");
    }

    private DriverCounts inProcessDriver() {
        return new DriverCounts() {
            public Read read() {
                VolumeStore st = store.get();
                return DriverCounts.of(st.volumesCreated(), st.volumesDeleted(), callMetrics.get().counts(),
                        injector.get().injectedCounts(), java.lang.management.ManagementFactory.getRuntimeMXBean()
                                .getStartTime() / 1000.0).withName(driverConfig.name());
            }

            public String source() {
                return "in-process mock driver";
            }
        };
    }

    static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t + ")";
    }
}
