package dev.provbench.cli;

import dev.provbench.csi.CallMetrics;
import dev.provbench.csi.CsiServer;
import dev.provbench.csi.DriverConfig;
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
import dev.provbench.report.Formats;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.ReportFormat;
import dev.provbench.report.RunReport;
import dev.provbench.util.Durations;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduler;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.io.StringReader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code provbench run}: one closed-loop PVC create/delete run against a cluster, or {@code --local}. */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Create and delete PVCs in a closed loop and report ops/s, latency, API requests and "
                + "client-side throttling.",
                "Exit codes: 0 ok, 1 a threshold failed, 2 bad usage, 3 the run failed."})
public class RunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--local", description = "Run everything in this JVM: an in-memory Kubernetes API, the mock "
            + "driver on a unix socket, a stand-in PV controller and csi-provisioner.")
    boolean local;

    @Option(names = "--threads", defaultValue = "64", description = "Workers (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--duration", defaultValue = "5m", description = "How long to run (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--cycles", description = "Stop after this many create/delete cycles instead of a duration.")
    Long cycles;

    @Option(names = "--op-timeout", defaultValue = "2m", description = "Timeout of one create or delete "
            + "(default ${DEFAULT-VALUE}).")
    String opTimeout;

    @Option(names = "--namespace", defaultValue = "default", description = "Namespace of the PVCs.")
    String namespace;

    @Option(names = "--kubeconfig", description = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, "
            + "in-cluster).")
    Path kubeconfig;

    @Option(names = "--storage-class", defaultValue = "${env:PROVBENCH_STORAGE_CLASS}",
            description = "StorageClass of the PVCs (required unless --local; default $PROVBENCH_STORAGE_CLASS).")
    String storageClass;

    @Option(names = "--size", defaultValue = "1Gi", description = "Requested size (default ${DEFAULT-VALUE}).")
    String size;

    @Option(names = "--access-mode", defaultValue = "ReadWriteOnce", description = "ReadWriteOnce, ReadOnlyMany, "
            + "ReadWriteMany or ReadWriteOncePod (default ${DEFAULT-VALUE}).")
    String accessMode;

    @Option(names = "--wait-mode", defaultValue = "informer", description = "informer (default) or poll (GETs, "
            + "only to measure the difference).")
    String waitMode;

    @Option(names = "--qps", defaultValue = "5", description = "Client QPS; negative disables the limiter "
            + "(default ${DEFAULT-VALUE}, as client-go).")
    double qps;

    @Option(names = "--burst", defaultValue = "10", description = "Client burst (default ${DEFAULT-VALUE}).")
    int burst;

    @Option(names = "--local-provisioner-qps", defaultValue = "5", description = "--local: the stand-in "
            + "provisioner's QPS; negative = unlimited (default ${DEFAULT-VALUE}).")
    double localProvisionerQps;

    @Option(names = "--local-provisioner-burst", defaultValue = "10", description = "--local: the stand-in "
            + "provisioner's burst (default ${DEFAULT-VALUE}).")
    int localProvisionerBurst;

    @Option(names = "--local-provisioner-reads", defaultValue = "lister", description = "--local: how the stand-in "
            + "reads PVs: lister (default) or get.")
    String localProvisionerReads;

    @Option(names = "--format", defaultValue = "table", description = "table, json, markdown or bench "
            + "(default ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--out", description = "Write the report in --format to this file (the table still goes to "
            + "stdout).")
    Path out;

    @Option(names = "--interval", defaultValue = "10s", description = "Progress and time-series interval.")
    String interval;

    @Option(names = "--min-ops-per-sec", description = "Fail (exit 1) below this many ops/s.")
    Double minOpsPerSec;

    @Option(names = "--max-failures", description = "Fail (exit 1) above this many failed operations.")
    Long maxFailures;

    @Option(names = "--max-p99", description = "Fail (exit 1) if the create or delete p99 exceeds this, e.g. 30s.")
    String maxP99;

    @Option(names = "--provisioner-log", defaultValue = "${env:PROVBENCH_PROVISIONER_LOG}",
            description = "csi-provisioner's log file: count throttling lines in the window "
            + "(default $PROVBENCH_PROVISIONER_LOG).")
    Path provisionerLog;

    @Option(names = "--provisioner-pod", description = "NAMESPACE/LABEL-SELECTOR of csi-provisioner's pod(s): "
            + "count throttling lines in their logs.")
    String provisionerPod;

    @Option(names = "--provisioner-container", defaultValue = "csi-provisioner", description = "Container for "
            + "--provisioner-pod (default ${DEFAULT-VALUE}).")
    String provisionerContainer;

    @Option(names = "--provisioner-metrics", defaultValue = "${env:PROVBENCH_PROVISIONER_METRICS}",
            description = "csi-provisioner's metrics URL: scrape at the window's start and end "
            + "(default $PROVBENCH_PROVISIONER_METRICS).")
    URI provisionerMetrics;

    @Option(names = "--audit-log", defaultValue = "${env:PROVBENCH_AUDIT_LOG}",
            description = "kube-apiserver's JSON audit log: API calls per operation by component (load driver, "
            + "csi-provisioner, kube-controller-manager) in the window (default $PROVBENCH_AUDIT_LOG).")
    Path auditLog;

    @Option(names = "--driver-url", defaultValue = "${env:PROVBENCH_DRIVER_URL}",
            description = "HTTP base URL of a provbench driver in another process: read its volume counts "
            + "(default $PROVBENCH_DRIVER_URL).")
    URI driverUrl;

    private final CsiServer csi;
    private final DriverConfig driverConfig;
    private final CallMetrics callMetrics;
    private final dev.provbench.csi.state.VolumeStore store;
    private final MeterRegistry registry;
    private final Scheduler scheduler;
    private final ActiveRun active;
    private final String version;

    public RunCommand(CsiServer csi, DriverConfig driverConfig, CallMetrics callMetrics,
            dev.provbench.csi.state.VolumeStore store, MeterRegistry registry,
            Scheduler scheduler, ActiveRun active,
            @ConfigProperty(name = "quarkus.application.version", defaultValue = "dev") String version) {
        this.csi = csi;
        this.driverConfig = driverConfig;
        this.callMetrics = callMetrics;
        this.store = store;
        this.registry = registry;
        this.scheduler = scheduler;
        this.active = active;
        this.version = version;
    }

    private ParameterException bad(String option, String message) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + message);
    }

    private Duration duration(String option, String value) {
        try {
            Duration d = Durations.parse(value);
            if (d.isZero()) {
                throw bad(option, "must be greater than 0");
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw bad(option, e.getMessage());
        }
    }

    private boolean given(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /** Checks every flag before anything starts; a bad one is exit code 2 naming it. */
    RunConfig validate() {
        if (local) {
            // the environment of `hack/local-cluster env` describes a real cluster, not the local one
            if (!given("--provisioner-log")) {
                provisionerLog = null;
            }
            if (!given("--provisioner-metrics")) {
                provisionerMetrics = null;
            }
            if (!given("--audit-log")) {
                auditLog = null;
            }
            if (!given("--driver-url")) {
                driverUrl = null;
            }
        }
        if (threads < 1) {
            throw bad("--threads", "must be at least 1");
        }
        Duration d = duration("--duration", duration);
        if (cycles != null && cycles < 1) {
            throw bad("--cycles", "must be at least 1");
        }
        Duration timeout = duration("--op-timeout", opTimeout);
        Duration step = duration("--interval", interval);
        if (!local && (storageClass == null || storageClass.isBlank())) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--storage-class' "
                    + "(or use --local)");
        }
        try {
            if (Quantity.getAmountInBytes(new Quantity(size)).signum() <= 0) {
                throw bad("--size", "must be positive");
            }
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw bad("--size", "'" + size + "' is not a Kubernetes quantity (e.g. 1Gi)");
        }
        if (!List.of("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod").contains(accessMode)) {
            throw bad("--access-mode", "'" + accessMode + "' is not one of ReadWriteOnce, ReadOnlyMany, "
                    + "ReadWriteMany, ReadWriteOncePod");
        }
        RunConfig.WaitMode mode = switch (waitMode) {
            case "informer" -> RunConfig.WaitMode.INFORMER;
            case "poll" -> RunConfig.WaitMode.POLL;
            default -> throw bad("--wait-mode", "'" + waitMode + "' is not informer or poll");
        };
        checkRate("--qps", qps, "--burst", burst);
        if (local) {
            checkRate("--local-provisioner-qps", localProvisionerQps, "--local-provisioner-burst",
                    localProvisionerBurst);
            if (!List.of("lister", "get").contains(localProvisionerReads)) {
                throw bad("--local-provisioner-reads", "'" + localProvisionerReads + "' is not lister or get");
            }
        }
        if (Formats.byName(format).isEmpty()) {
            throw bad("--format", "'" + format + "' is not one of " + Formats.names());
        }
        if (out != null && out.toAbsolutePath().getParent() != null
                && !Files.isDirectory(out.toAbsolutePath().getParent())) {
            throw bad("--out", "directory " + out.toAbsolutePath().getParent() + " does not exist");
        }
        if (minOpsPerSec != null && (minOpsPerSec < 0 || minOpsPerSec.isNaN())) {
            throw bad("--min-ops-per-sec", "must not be negative");
        }
        if (maxFailures != null && maxFailures < 0) {
            throw bad("--max-failures", "must not be negative");
        }
        if (maxP99 != null) {
            duration("--max-p99", maxP99);
        }
        if (provisionerLog != null && !Files.isReadable(provisionerLog)) {
            throw bad("--provisioner-log", provisionerLog + " is not a readable file");
        }
        if (provisionerPod != null && !provisionerPod.matches("[^/]+/.+")) {
            throw bad("--provisioner-pod", "'" + provisionerPod + "' is not NAMESPACE/LABEL-SELECTOR");
        }
        for (Map.Entry<String, URI> u : urls().entrySet()) {
            if (u.getValue() != null && (u.getValue().getScheme() == null
                    || !u.getValue().getScheme().matches("https?") || u.getValue().getHost() == null)) {
                throw bad(u.getKey(), "'" + u.getValue() + "' is not an http(s) URL");
            }
        }
        if (auditLog != null && !Files.isReadable(auditLog)) {
            throw bad("--audit-log", auditLog + " is not a readable file");
        }
        if (kubeconfig != null && !Files.isReadable(kubeconfig)) {
            throw bad("--kubeconfig", kubeconfig + " is not a readable file");
        }
        return new RunConfig(threads, d, cycles == null ? 0 : cycles, timeout, namespace,
                local ? LocalCluster.STORAGE_CLASS : storageClass, size, accessMode, mode, qps, burst, step);
    }

    private Map<String, URI> urls() {
        Map<String, URI> m = new LinkedHashMap<>();
        m.put("--provisioner-metrics", provisionerMetrics);
        m.put("--driver-url", driverUrl);
        return m;
    }

    private void checkRate(String qpsOption, double q, String burstOption, int b) {
        if (Double.isNaN(q) || Double.isInfinite(q)) {
            throw bad(qpsOption, "must be a number");
        }
        if (b < 0) {
            throw bad(burstOption, "must not be negative");
        }
        if (q > 0 && b == 0) {
            throw bad(burstOption, "must be at least 1 when " + qpsOption + " is positive");
        }
    }

    @Override
    public Integer call() throws Exception {
        RunConfig cfg = validate();
        PrintWriter err = spec.commandLine().getErr();
        LocalCluster cluster = null;
        KubernetesClient client = null;
        LoadRun run = null;
        active.begin();
        try {
            Config api;
            RateLimiter provisionerLimiter = null;
            if (local) {
                provisionerLimiter = RateLimiter.of(localProvisionerQps, localProvisionerBurst);
                try {
                    cluster = LocalCluster.start(csi, driverConfig.name(), provisionerLimiter,
                            localProvisionerReads.equals("get"), registry);
                } catch (Exception e) {
                    err.println("provbench run: cannot start the local cluster: " + e.getMessage());
                    return ExitCodes.FAILED;
                }
                api = cluster.api();
            } else {
                api = KubeClients.config(kubeconfig);
            }
            RequestStats stats = new RequestStats("provbench", registry);
            client = KubeClients.client(api, RateLimiter.of(qps, burst), stats);
            run = new LoadRun(cfg, client, stats, Clock.systemUTC()).withMetrics(registry);
            active.set(run);
            try {
                run.prepare();
            } catch (Exception e) {
                err.println("provbench run: cannot watch PVCs and PVs at " + api.getMasterUrl() + ": "
                        + rootMessage(e));
                return ExitCodes.FAILED;
            }
            err.printf("provbench run %s: %d workers, %s, storage class %s, namespace %s, qps/burst %s%s%n",
                    run.runId(), cfg.threads(), cycles != null ? cycles + " cycles" : Durations.format(cfg.duration()),
                    cfg.storageClass(), cfg.namespace(), qps < 0 ? "unlimited" : fmt(qps) + "/" + burst,
                    local ? " (local)" : "");
            DriverCounts driverCounts = local ? inProcessDriver() : driverUrl != null ? new DriverStatsHttp(driverUrl)
                    : null;
            MetricsScrape scrape = provisionerMetrics == null ? null : new MetricsScrape(provisionerMetrics);
            List<WindowProbe> probes = scrape == null ? List.of() : List.of(scrape);
            LoadRun.Outcome outcome;
            LoadRun r = run;
            Scheduler.JobDefinition<?> job = scheduler.newJob("provbench-progress-" + run.runId())
                    .setInterval(interval).setDelayed(interval)
                    .setTask(ex -> progress(err, r, stats));
            lastElapsed = 0;
            lastOps = 0;
            job.schedule();
            try {
                outcome = run.execute(driverCounts, probes);
            } finally {
                scheduler.unscheduleJob("provbench-progress-" + run.runId());
            }
            RunReport.Provisioner provisioner = provisionerEvidence(client, outcome, scrape, err);
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
            if (auditLog != null) {
                try {
                    Thread.sleep(2000); // the apiserver writes its audit log in batches
                    components = dev.provbench.evidence.AuditLog.byComponent(auditLog, outcome.start(), outcome.end(),
                            outcome.log().creates() + outcome.log().deletes());
                } catch (Exception e) {
                    err.println("provbench run: cannot read the audit log " + auditLog + ": " + e.getMessage());
                }
            }
            RunReport.Config config = ReportBuilder.config(cfg, local ? provisionerLimiter.enabled()
                            ? provisionerLimiter.qps() : -1.0 : null, local ? localProvisionerBurst : null,
                    local ? localProvisionerReads : null);
            RunReport report = ReportBuilder.build(version, local ? "local" : "cluster", cfg, config, outcome,
                    provisioner, components, new ReportBuilder.Slo(minOpsPerSec, maxFailures,
                            maxP99 == null ? null : Durations.parse(maxP99).toNanos() / 1e6),
                    driverCounts == null ? null : driverCounts.source());
            write(report);
            if (run.aborted()) {
                err.println("provbench run: aborted; the report covers the time until the abort");
                return ExitCodes.FAILED;
            }
            return Boolean.FALSE.equals(report.passed()) ? ExitCodes.THRESHOLD : ExitCodes.OK;
        } finally {
            if (client != null) {
                client.close();
            }
            if (cluster != null) {
                cluster.close();
            }
            active.end();
        }
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

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t + ")";
    }

    /** Last progress sample: elapsed seconds and ops, for the ops/s over the last interval. */
    private double lastElapsed;
    private long lastOps;

    private synchronized void progress(PrintWriter err, LoadRun run, RequestStats stats) {
        if (run.log() == null) {
            return;
        }
        var log = run.log();
        double elapsed = (System.nanoTime() - log.startNanos()) / 1e9;
        long ops = log.creates() + log.deletes();
        double recent = (ops - lastOps) / Math.max(elapsed - lastElapsed, 1e-9);
        lastOps = ops;
        lastElapsed = elapsed;
        err.printf(Locale.ROOT, "[%6.0fs] creates %d  deletes %d  failures %d  ops/s %.2f (overall %.2f)  "
                        + "in flight %d  requests %d  throttled %d%n", elapsed, log.creates(), log.deletes(),
                log.failures(), recent, ops / Math.max(elapsed, 1e-9), log.inFlight(), stats.total(),
                stats.throttled());
        err.flush();
    }

    private RunReport.Provisioner provisionerEvidence(KubernetesClient client, LoadRun.Outcome o, MetricsScrape scrape,
            PrintWriter err) {
        Long lines = null;
        String logSource = null;
        String note = null;
        try {
            if (provisionerLog != null) {
                lines = ThrottlingLines.count(Files.newBufferedReader(provisionerLog), o.start(), o.end(),
                        ZoneId.systemDefault());
                logSource = provisionerLog.toString();
            } else if (provisionerPod != null) {
                String ns = provisionerPod.substring(0, provisionerPod.indexOf('/'));
                String selector = provisionerPod.substring(provisionerPod.indexOf('/') + 1);
                long n = 0;
                List<String> pods = new ArrayList<>();
                for (Pod p : client.pods().inNamespace(ns).withLabelSelector(selector).list().getItems()) {
                    String text = client.pods().inNamespace(ns).withName(p.getMetadata().getName())
                            .inContainer(provisionerContainer).usingTimestamps()
                            .sinceTime(o.start().minusSeconds(1).toString()).getLog();
                    n += ThrottlingLines.count(new StringReader(text), o.start(), o.end(), ZoneId.of("UTC"));
                    pods.add(p.getMetadata().getName());
                }
                if (pods.isEmpty()) {
                    note = "no pod matches " + provisionerPod;
                } else {
                    lines = n;
                    logSource = "pods " + String.join(", ", pods) + " container " + provisionerContainer;
                }
            }
        } catch (Exception e) {
            note = "cannot read the provisioner's log: " + e.getMessage();
            err.println("provbench run: " + note);
        }
        Map<String, Double> metrics = scrape == null ? null : scrape.deltas();
        if (scrape != null && metrics == null) {
            note = (note == null ? "" : note + "; ") + "metrics scrape of " + scrape.source() + " failed";
        }
        if (lines == null && metrics == null && note == null) {
            return local ? new RunReport.Provisioner(null, null, null, null,
                    "stand-in provisioner: its requests and throttling are under components") : null;
        }
        return new RunReport.Provisioner(lines, logSource, metrics, scrape == null ? null : scrape.source(), note);
    }

    private void write(RunReport report) throws java.io.IOException {
        ReportFormat f = Formats.byName(format).orElseThrow();
        PrintWriter stdout = spec.commandLine().getOut();
        if (out != null) {
            Files.writeString(out, f.render(report));
            stdout.print(Formats.byName("table").orElseThrow().render(report));
            spec.commandLine().getErr().println("report written to " + out);
        } else {
            stdout.print(f.render(report));
        }
        stdout.flush();
    }
}
