package dev.provbench.run;

import dev.provbench.cli.ExitCodes;
import dev.provbench.csi.CallMetrics;
import dev.provbench.csi.CsiServer;
import dev.provbench.csi.DriverConfig;
import dev.provbench.csi.state.VolumeStore;
import dev.provbench.evidence.AuditLog;
import dev.provbench.evidence.DriverStatsHttp;
import dev.provbench.evidence.MetricsScrape;
import dev.provbench.evidence.ThrottlingLines;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.DriverCounts;
import dev.provbench.load.LoadRun;
import dev.provbench.load.RunConfig;
import dev.provbench.load.WindowProbe;
import dev.provbench.local.LocalCluster;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.RunReport;
import dev.provbench.util.Durations;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduler;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.io.StringReader;
import java.nio.file.Files;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Carries out one {@link RunExecution} from start to report: the cluster (or {@code local}), the client with
 * its rate limiter, the load run, the evidence (provisioner log, metrics, audit log, driver counts) and the
 * report. Used by {@code provbench run} and by the REST API.
 */
@ApplicationScoped
public class RunExecutor {
    private final CsiServer csi;
    private final DriverConfig driverConfig;
    private final CallMetrics callMetrics;
    private final VolumeStore store;
    private final MeterRegistry registry;
    private final Scheduler scheduler;
    private final String version;

    public RunExecutor(CsiServer csi, DriverConfig driverConfig, CallMetrics callMetrics, VolumeStore store,
            MeterRegistry registry, Scheduler scheduler,
            @ConfigProperty(name = "quarkus.application.version", defaultValue = "dev") String version) {
        this.csi = csi;
        this.driverConfig = driverConfig;
        this.callMetrics = callMetrics;
        this.store = store;
        this.registry = registry;
        this.scheduler = scheduler;
        this.version = version;
    }

    /**
     * Runs {@code e} to its end on the calling thread; {@code say} gets the start line, progress lines and
     * problems. Never throws: whatever goes wrong ends the execution as failed, with a message.
     */
    public void execute(RunExecution e, Consumer<String> say) {
        RunRequest.Checked c = e.checked();
        RunRequest q = c.request();
        RunConfig cfg = c.config();
        LocalCluster cluster = null;
        KubernetesClient client = null;
        String jobs = "provbench-" + e.id();
        try {
            Config api;
            RateLimiter provisionerLimiter = null;
            if (q.local) {
                provisionerLimiter = RateLimiter.of(q.localProvisionerQps, q.localProvisionerBurst);
                try {
                    cluster = LocalCluster.start(csi, driverConfig.name(), provisionerLimiter,
                            q.localProvisionerReads.equals("get"), registry);
                } catch (Exception ex) {
                    fail(e, "cannot start the local cluster: " + ex.getMessage(), say);
                    return;
                }
                api = cluster.api();
            } else {
                api = KubeClients.config(c.kubeconfig());
            }
            RequestStats stats = new RequestStats("provbench", registry);
            client = KubeClients.client(api, RateLimiter.of(q.qps, q.burst), stats);
            LoadRun run = new LoadRun(e.id(), cfg, client, stats, Clock.systemUTC()).withMetrics(registry);
            try {
                run.prepare();
            } catch (Exception ex) {
                fail(e, "cannot watch PVCs and PVs at " + api.getMasterUrl() + ": " + rootMessage(ex), say);
                return;
            }
            e.running(run, stats);
            say.accept(String.format(Locale.ROOT, "provbench run %s: %d workers, %s, storage class %s, "
                            + "namespace %s, qps/burst %s%s", e.id(), cfg.threads(),
                    cfg.cycles() > 0 ? cfg.cycles() + " cycles" : Durations.format(cfg.duration()),
                    cfg.storageClass(), cfg.namespace(), q.qps < 0 ? "unlimited" : fmt(q.qps) + "/" + q.burst,
                    q.local ? " (local)" : ""));
            DriverCounts driverCounts = q.local ? inProcessDriver()
                    : c.driverUrl() != null ? new DriverStatsHttp(c.driverUrl()) : null;
            MetricsScrape scrape = c.provisionerMetrics() == null ? null : new MetricsScrape(c.provisionerMetrics());
            List<WindowProbe> probes = scrape == null ? List.of() : List.of(scrape);
            String interval = cfg.interval().toString(); // ISO-8601, which the scheduler accepts
            scheduler.newJob(jobs + "-progress").setInterval(interval).setDelayed(interval)
                    .setTask(x -> {
                        String line = e.progressLine();
                        if (line != null) {
                            say.accept(line);
                        }
                    }).schedule();
            scheduler.newJob(jobs + "-samples").setInterval("1s").setTask(x -> e.sample()).schedule();
            LoadRun.Outcome outcome;
            try {
                outcome = run.execute(driverCounts, probes);
            } finally {
                scheduler.unscheduleJob(jobs + "-progress");
                scheduler.unscheduleJob(jobs + "-samples");
            }
            RunReport.Provisioner provisioner = provisionerEvidence(c, client, outcome, scrape, say);
            Map<String, RunReport.Requests> components = null;
            // requests are counted over the whole run (drain included), so per op divides by every completed op
            long ops = outcome.log().creates() + outcome.log().deletes() + outcome.log().afterWindow();
            if (cluster != null) {
                components = new LinkedHashMap<>();
                components.put("provisioner (stand-in)", ReportBuilder.requests(
                        cluster.standIn().provisionerStats().snapshot(), ops));
                components.put("pv-controller (stand-in)", ReportBuilder.requests(
                        cluster.standIn().pvControllerStats().snapshot(), ops));
            }
            if (c.auditLog() != null) {
                try {
                    Thread.sleep(2000); // the apiserver writes its audit log in batches
                    components = AuditLog.byComponent(c.auditLog(), outcome.start(), outcome.end(),
                            outcome.log().creates() + outcome.log().deletes());
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                } catch (Exception ex) {
                    say.accept("cannot read the audit log " + c.auditLog() + ": " + ex.getMessage());
                }
            }
            RunReport.Config config = ReportBuilder.config(cfg, q.local ? provisionerLimiter.enabled()
                            ? provisionerLimiter.qps() : -1.0 : null, q.local ? q.localProvisionerBurst : null,
                    q.local ? q.localProvisionerReads : null);
            RunReport report = ReportBuilder.build(version, q.local ? "local" : "cluster", cfg, config, outcome,
                    provisioner, components, c.slo(), driverCounts == null ? null : driverCounts.source());
            if (run.aborted()) {
                e.ended(RunExecution.State.ABORTED, ExitCodes.FAILED, report,
                        "aborted; the report covers the time until the abort");
            } else if (Boolean.FALSE.equals(report.passed())) {
                e.ended(RunExecution.State.FAILED, ExitCodes.THRESHOLD, report, "a threshold failed");
            } else {
                e.ended(RunExecution.State.SUCCEEDED, ExitCodes.OK, report, null);
            }
        } catch (Exception | Error ex) {
            fail(e, "the run failed: " + rootMessage(ex), say);
            if (ex instanceof Error err) {
                throw err;
            }
        } finally {
            if (client != null) {
                client.close();
            }
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    private static void fail(RunExecution e, String why, Consumer<String> say) {
        say.accept(why);
        e.ended(e.abortRequested() ? RunExecution.State.ABORTED : RunExecution.State.FAILED, ExitCodes.FAILED,
                null, why);
    }

    private DriverCounts inProcessDriver() {
        return new DriverCounts() {
            public Counts read() {
                return new Counts(store.volumesCreated(), store.volumesDeleted(),
                        callMetrics.count("CreateVolume", Status.Code.OK),
                        callMetrics.count("DeleteVolume", Status.Code.OK));
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

    private RunReport.Provisioner provisionerEvidence(RunRequest.Checked c, KubernetesClient client,
            LoadRun.Outcome o, MetricsScrape scrape, Consumer<String> say) {
        Long lines = null;
        String logSource = null;
        String note = null;
        String container = c.request().provisionerContainer;
        try {
            if (c.provisionerLog() != null) {
                lines = ThrottlingLines.count(Files.newBufferedReader(c.provisionerLog()), o.start(), o.end(),
                        ZoneId.systemDefault());
                logSource = c.provisionerLog().toString();
            } else if (c.provisionerPodNamespace() != null) {
                String ns = c.provisionerPodNamespace();
                long n = 0;
                List<String> pods = new ArrayList<>();
                for (Pod p : client.pods().inNamespace(ns).withLabelSelector(c.provisionerPodSelector()).list()
                        .getItems()) {
                    String text = client.pods().inNamespace(ns).withName(p.getMetadata().getName())
                            .inContainer(container).usingTimestamps()
                            .sinceTime(o.start().minusSeconds(1).toString()).getLog();
                    n += ThrottlingLines.count(new StringReader(text), o.start(), o.end(), ZoneId.of("UTC"));
                    pods.add(p.getMetadata().getName());
                }
                if (pods.isEmpty()) {
                    note = "no pod matches " + c.request().provisionerPod;
                } else {
                    lines = n;
                    logSource = "pods " + String.join(", ", pods) + " container " + container;
                }
            }
        } catch (Exception ex) {
            note = "cannot read the provisioner's log: " + ex.getMessage();
            say.accept(note);
        }
        Map<String, Double> metrics = scrape == null ? null : scrape.deltas();
        if (scrape != null && metrics == null) {
            note = (note == null ? "" : note + "; ") + "metrics scrape of " + scrape.source() + " failed";
        }
        if (lines == null && metrics == null && note == null) {
            return c.request().local ? new RunReport.Provisioner(null, null, null, null,
                    "stand-in provisioner: its requests and throttling are under components") : null;
        }
        return new RunReport.Provisioner(lines, logSource, metrics, scrape == null ? null : scrape.source(), note);
    }
}
