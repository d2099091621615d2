package dev.provbench.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.provbench.kube.RateLimiter;
import dev.provbench.load.RunConfig;
import dev.provbench.load.Waits;
import dev.provbench.local.LocalCluster;
import dev.provbench.local.StandInControllers;
import dev.provbench.report.ReportBuilder;
import dev.provbench.util.Durations;
import io.fabric8.kubernetes.api.model.Quantity;
import picocli.CommandLine.Option;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every option of a load run — the single definition. {@code provbench run} binds its flags to these fields
 * (a picocli mixin: the {@code @Option} annotations), {@code POST /api/runs} reads them as JSON; the field
 * name is the JSON name and the flag is the same name in kebab case ({@code opTimeout} ↔ {@code --op-timeout}).
 * Defaults are the fields' initial values; {@link #ENVIRONMENT} fills some from the environment; {@link #check()}
 * validates everything before anything starts.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RunRequest {
    @Option(names = "--local", description = "Run everything in this JVM: an in-memory Kubernetes API, the mock "
            + "driver on a unix socket, a stand-in PV controller and csi-provisioner.")
    public boolean local;

    @Option(names = "--mode", description = "The workload: churn (default: each worker creates a claim, waits for "
            + "Bound, deletes it, waits until its PV is gone, again, for the window) or bulk (--count claims at once "
            + "through the client's QPS/burst, wait until all are Bound, delete all, wait until every PV is gone).")
    public String mode = "churn";

    @Option(names = "--count", description = "--mode bulk: how many claims the wave creates.")
    public Long count;

    @Option(names = "--population", description = "Before the window, make the namespace hold this many bound "
            + "claims and their PVs (grown or shrunk from a population found there), and open the window only once "
            + "all are Bound; removed after the run unless --keep-population (docs/load.md, \"A standing "
            + "population\").")
    public Long population;

    @Option(names = "--population-mode", description = "How the population is made: provisioned (default: claims "
            + "of the StorageClass, through csi-provisioner and the driver) or prebound (a PV written per claim, "
            + "reclaim policy Retain, and its claim naming it: at the API server's speed; the provisioner never "
            + "sees them).")
    public String populationMode;

    @Option(names = "--keep-population", description = "Leave the population in place after the run (a sweep keeps "
            + "it between cells); 'provbench cleanup --population' removes it.")
    public boolean keepPopulation;

    @Option(names = "--threads", description = "Workers (default ${DEFAULT-VALUE}); with --mode bulk, the POSTs "
            + "and DELETEs in flight at most.")
    public int threads = 64;

    @Option(names = "--duration", description = "Length of the measured window, after the warm-up "
            + "(default ${DEFAULT-VALUE}).")
    public String duration = "5m";

    @Option(names = "--warmup", description = "auto (default: the window opens once every worker has completed "
            + "one cycle), a duration such as 45s, or 0. With --cycles, auto means 0. Not with --mode bulk (its "
            + "window is the whole wave).")
    public String warmup = "auto";

    @Option(names = "--ramp", description = "How the workers start: auto (default: one, then one more each time a "
            + "cycle ends — the starts spread over about one cycle at full load, so the workers do not move in "
            + "waves; at least one more per warm-up cap / (2 x threads)), a duration such as 30s (evenly over it), "
            + "or 0 (all at once).")
    public String ramp = "auto";

    @Option(names = "--warmup-max", description = "Cap of the auto warm-up; past it the window opens anyway and "
            + "the report says so (default ${DEFAULT-VALUE}).")
    public String warmupMax = "5m";

    @Option(names = "--cycles", description = "End the window after this many create/delete cycles instead of a "
            + "duration.")
    public Long cycles;

    /** null = 2m, with --mode bulk {@link #bulkOpTimeout} */
    @Option(names = "--op-timeout", description = "Timeout of one create or delete (default 2m; with --mode bulk "
            + "30m or 1s per claim, whichever is longer, from the claim's own POST or DELETE: a wave's last claims "
            + "wait behind all the others).")
    public String opTimeout;

    @Option(names = "--abort-grace", description = "On abort (DELETE, SIGTERM, Ctrl-C): how long cycles in flight "
            + "may still finish before their waits are cut and cleanup starts (default ${DEFAULT-VALUE}).")
    public String abortGrace = "20s";

    @Option(names = "--cleanup-timeout", description = "After the run (or an abort): how long cleanup may delete "
            + "the run's claims and wait for their volumes to go; what is left then is listed in the report with "
            + "the command that removes it (default ${DEFAULT-VALUE}).")
    public String cleanupTimeout = "3m";

    @Option(names = "--stall-timeout", description = "Against a cluster: when no create has completed this long "
            + "after the first, read the claims' Events and stop the run (exit 3) if they show it cannot work — no "
            + "provisioner serves the StorageClass's driver, nothing hands claims to one, every create refused, "
            + "the driver refuses every claim —, naming the cause; 0 = never (default ${DEFAULT-VALUE}).")
    public String stallTimeout = "30s";

    @Option(names = "--cleanup-stale", description = "Before the run, remove the claims earlier runs left in the "
            + "namespace (every claim carrying the run label, as 'provbench cleanup --all' does); without it they "
            + "are only listed in a warning.")
    public boolean cleanupStale;

    /** null = $PROVBENCH_NAMESPACE, else "default" */
    @Option(names = "--namespace", description = "Namespace of the PVCs (default $PROVBENCH_NAMESPACE, else "
            + "default).")
    public String namespace;

    /** null = 1 */
    @Option(names = "--namespaces", description = "Spread the claims round-robin over this many namespaces, "
            + "<namespace>-0 … <namespace>-(K-1), made for the run (labelled with it, and removed by its cleanup) "
            + "where they do not exist (default 1: --namespace itself; at most " + dev.provbench.load.RunNamespaces.MAX
            + "). A population stays in --namespace.")
    public Integer namespaces;

    @Option(names = "--kubeconfig", description = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, "
            + "in-cluster).")
    public String kubeconfig;

    @Option(names = "--storage-class", description = "StorageClass of the PVCs (required unless --local; default "
            + "$PROVBENCH_STORAGE_CLASS).")
    public String storageClass;

    @Option(names = "--size", description = "Requested size (default ${DEFAULT-VALUE}).")
    public String size = "1Gi";

    @Option(names = "--access-mode", description = "ReadWriteOnce, ReadOnlyMany, ReadWriteMany or "
            + "ReadWriteOncePod (default ${DEFAULT-VALUE}).")
    public String accessMode = "ReadWriteOnce";

    @Option(names = "--wait-mode", description = "informer (default) or poll (GETs, only to measure the "
            + "difference).")
    public RunConfig.WaitMode waitMode = RunConfig.WaitMode.INFORMER;

    @Option(names = "--qps", description = "Client QPS; 0 = client-go's default, negative disables the limiter "
            + "(default ${DEFAULT-VALUE}).")
    public double qps = RateLimiter.DEFAULT_QPS;

    @Option(names = "--burst", description = "Client burst (default ${DEFAULT-VALUE}).")
    public int burst = RateLimiter.DEFAULT_BURST;

    @Option(names = "--provisioner-kube-api-qps", description = "Against a cluster: csi-provisioner's "
            + "--kube-api-qps as deployed, for the audit-log estimate of how bucket-bound it was (default: its "
            + "default 5, marked assumed in the report; negative = unlimited).")
    public Double provisionerKubeApiQps;

    @Option(names = "--provisioner-kube-api-burst", description = "Against a cluster: csi-provisioner's "
            + "--kube-api-burst as deployed (default: its default 10, marked assumed).")
    public Integer provisionerKubeApiBurst;

    @Option(names = "--local-provisioner-qps", description = "--local: the stand-in provisioner's QPS; negative "
            + "= unlimited (default ${DEFAULT-VALUE}).")
    public double localProvisionerQps = RateLimiter.DEFAULT_QPS;

    @Option(names = "--local-provisioner-burst", description = "--local: the stand-in provisioner's burst "
            + "(default ${DEFAULT-VALUE}).")
    public int localProvisionerBurst = RateLimiter.DEFAULT_BURST;

    @Option(names = "--local-provisioner-reads", description = "--local: how the stand-in reads PVs: lister "
            + "(default) or get.")
    public StandInControllers.Reads localProvisionerReads = StandInControllers.Reads.LISTER;

    @Option(names = "--local-api-latency", description = "--local: how long the stand-ins wait for each answer "
            + "of the in-memory API, as for kube-apiserver's (default ${DEFAULT-VALUE}: its median on "
            + "hack/local-cluster at 50/100; 0 = none; at most 1s).")
    public String localApiLatency = "16ms";

    @Option(names = "--interval", description = "Progress and time-series interval (default ${DEFAULT-VALUE}).")
    public String interval = "10s";

    @Option(names = "--min-ops-per-sec", description = "Fail (exit 1) below this many ops/s.")
    public Double minOpsPerSec;

    @Option(names = "--max-failures", description = "Fail (exit 1) above this many failed operations.")
    public Long maxFailures;

    @Option(names = "--max-failure-ratio", description = "Fail (exit 1) when more than this fraction of the "
            + "window's operations failed (default ${DEFAULT-VALUE}; 1 turns it off). A window in which no "
            + "operation completed always fails.")
    public double maxFailureRatio = 0.5;

    @Option(names = "--require-alone", description = "Fail (exit 1) when the run was not alone: other claims of "
            + "its provisioner came or went in the window, or the driver served other volumes (window.sharedWith), "
            + "or that could not be told.")
    public boolean requireAlone;

    @Option(names = "--max-p99", description = "Fail (exit 1) if the create or delete total p99 exceeds this, "
            + "e.g. 30s.")
    public String maxP99;

    @Option(names = "--provisioner-log", description = "csi-provisioner's log file: count throttling lines in the "
            + "window (default $PROVBENCH_PROVISIONER_LOG).")
    public String provisionerLog;

    @Option(names = "--provisioner-pod", description = "NAMESPACE/LABEL-SELECTOR of csi-provisioner's pod(s): "
            + "count throttling lines in their logs (default $PROVBENCH_PROVISIONER_POD).")
    public String provisionerPod;

    @Option(names = "--provisioner-container", description = "Container for --provisioner-pod (default "
            + "${DEFAULT-VALUE}).")
    public String provisionerContainer = "csi-provisioner";

    @Option(names = "--provisioner-metrics", description = "csi-provisioner's metrics URL: its CSI calls and its "
            + "CPU and memory (default $PROVBENCH_PROVISIONER_METRICS).")
    public String provisionerMetrics;

    @Option(names = "--audit-log", description = "kube-apiserver's JSON audit log: API calls per operation by "
            + "component in the window (default $PROVBENCH_AUDIT_LOG).")
    public String auditLog;

    @Option(names = "--records", paramLabel = "FILE", description = "Also write one NDJSON line per completed "
            + "create and delete: its stage timestamps and durations (field names as kube-burner's pvcLatency "
            + "records where the meaning is the same; docs/load.md).")
    public String records;

    @Option(names = "--driver-url", description = "HTTP base URL of a provbench driver in another process: its "
            + "volume counts, CPU and memory (default $PROVBENCH_DRIVER_URL).")
    public String driverUrl;

    @Option(names = "--processes", description = "NAME=PID,… of processes on this machine whose CPU and memory "
            + "the report shows under resources, e.g. kube-apiserver=1234 (default $PROVBENCH_PROCESSES).")
    public String processes;

    /** A field with a bad value; {@link #field} is the JSON name. */
    public static final class Invalid extends RuntimeException {
        private final String field;

        public Invalid(String field, String message) {
            super(message);
            this.field = field;
        }

        public String field() {
            return field;
        }

        /** The flag of {@code provbench run} for this field: {@code opTimeout} → {@code --op-timeout}. */
        public String flag() {
            return flag(field);
        }

        public static String flag(String field) {
            return "--" + field.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A checked request: what the load run, the measurements and the thresholds need. */
    public record Checked(RunRequest request, RunConfig config, ReportBuilder.Slo slo, Path kubeconfig,
                          Path provisionerLog, String provisionerPodNamespace, String provisionerPodSelector,
                          URI provisionerMetrics, Path auditLog, URI driverUrl, Map<String, Long> processes,
                          Path records) {
        /**
         * The {@code --local} stand-in provisioner's settings ({@code qps} negative: unlimited), or null for a
         * cluster run.
         */
        public StandIn standIn() {
            if (!request.local) {
                return null;
            }
            var limiter = dev.provbench.kube.RateLimiter.of(request.localProvisionerQps, request.localProvisionerBurst);
            return new StandIn(limiter.enabled() ? limiter.qps() : -1.0, request.localProvisionerBurst,
                    request.localProvisionerReads);
        }

        /** The report's {@code config}: the run's checked settings, and the stand-in's with {@code --local}. */
        public Reported reported() {
            return new Reported(config, standIn());
        }
    }

    /** The stand-in provisioner's client-side bucket and how it reads PVs. */
    public record StandIn(double qps, int burst, dev.provbench.local.StandInControllers.Reads reads) {
    }

    /** What the report's {@code config} holds: {@link RunConfig}'s fields, and {@code standIn} with --local. */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Reported(@com.fasterxml.jackson.annotation.JsonUnwrapped RunConfig run, StandIn standIn) {
    }

    /**
     * Environment variables that supply defaults against a real cluster (what {@code hack/local-cluster env}
     * exports); a local run ignores them because they describe a real cluster.
     */
    public static final Map<String, String> ENVIRONMENT = Map.of(
            "namespace", "PROVBENCH_NAMESPACE",
            "storageClass", "PROVBENCH_STORAGE_CLASS",
            "provisionerLog", "PROVBENCH_PROVISIONER_LOG",
            "provisionerMetrics", "PROVBENCH_PROVISIONER_METRICS",
            "provisionerPod", "PROVBENCH_PROVISIONER_POD",
            "auditLog", "PROVBENCH_AUDIT_LOG",
            "driverUrl", "PROVBENCH_DRIVER_URL",
            "processes", "PROVBENCH_PROCESSES");

    /**
     * Fields that name files or processes of the machine that runs provbench: over the API they would let a
     * caller make the server read any file it can, so they are settings of the {@code serve} process only (its
     * environment, {@link #ENVIRONMENT}).
     */
    public static final List<String> SERVER_SETTINGS = List.of("kubeconfig", "auditLog", "provisionerLog", "processes",
            "records");
    /** URLs the server fetches: over the API only the server's own configured value (or none) is accepted. */
    public static final List<String> SERVER_URLS = List.of("driverUrl", "provisionerMetrics");

    /**
     * What a request over the API may not set (before {@link #withEnvironmentDefaults}): throws
     * {@link Invalid} naming the first such field.
     */
    public RunRequest checkFromApi(Map<String, String> env) {
        Map<String, String> given = new LinkedHashMap<>();
        given.put("kubeconfig", kubeconfig);
        given.put("auditLog", auditLog);
        given.put("provisionerLog", provisionerLog);
        given.put("processes", processes);
        given.put("records", records);
        for (String f : SERVER_SETTINGS) {
            if (given.get(f) != null) {
                String var = ENVIRONMENT.get(f);
                throw Fields.bad(f, "is a setting of the server, not of a request" + (var == null ? "" : " (the "
                        + "server's environment: " + var + ")"));
            }
        }
        Map<String, String> urls = Map.of("driverUrl", driverUrl == null ? "" : driverUrl,
                "provisionerMetrics", provisionerMetrics == null ? "" : provisionerMetrics);
        for (String f : SERVER_URLS) {
            String v = urls.get(f);
            String configured = env.get(ENVIRONMENT.get(f));
            if (!v.isEmpty() && !v.equals(configured)) {
                throw Fields.bad(f, "may only be the server's configured value (" + ENVIRONMENT.get(f) + ") or absent");
            }
        }
        return this;
    }

    /** Fills unset fields from {@link #ENVIRONMENT} (not for a local run). */
    public RunRequest withEnvironmentDefaults(Map<String, String> env) {
        if (local) {
            return this;
        }
        namespace = orEnv(namespace, env, "namespace");
        storageClass = orEnv(storageClass, env, "storageClass");
        provisionerLog = orEnv(provisionerLog, env, "provisionerLog");
        provisionerMetrics = orEnv(provisionerMetrics, env, "provisionerMetrics");
        if (provisionerLog == null) { // one source of throttling lines: a log file wins over pod logs
            provisionerPod = orEnv(provisionerPod, env, "provisionerPod");
        }
        auditLog = orEnv(auditLog, env, "auditLog");
        driverUrl = orEnv(driverUrl, env, "driverUrl");
        processes = orEnv(processes, env, "processes");
        return this;
    }

    private static String orEnv(String value, Map<String, String> env, String field) {
        String e = env.get(ENVIRONMENT.get(field));
        return value != null || e == null || e.isBlank() ? value : e;
    }

    /**
     * A bulk claim's default timeout: 30m, or a second per claim in the wave, whichever is longer (at most
     * {@code max}). The wave's last claim waits behind all the others, its DELETE too: csi-provisioner at its default
     * QPS 5 binds ~5 claims a second and deletes ~2.5 (docs/results/bulk.md), so a wave of 10,000 needs ~34 minutes
     * to bind its last claim and ~67 to delete it; under a fixed 30m, 121 of its creates and 5,400 of its deletes
     * failed as timeouts (hack/bench/bulk 5/10 10000, 2026-12-07).
     */
    static Duration bulkOpTimeout(long count, Duration max) {
        Duration d = Duration.ofSeconds(Math.max(30 * 60, count));
        return d.compareTo(max) > 0 ? max : d;
    }

    /** Checks every field against the default {@link RunLimits}. */
    public Checked check() {
        return check(RunLimits.Values.DEFAULT);
    }

    /** Checks every field before anything starts, within {@code limits}; the first bad one is thrown, named. */
    public Checked check(RunLimits.Values limits) {
        if (threads < 1 || threads > limits.threads()) {
            throw Fields.bad("threads", "must be 1 to " + limits.threads());
        }
        Duration max = limits.duration();
        if (mode == null || !dev.provbench.load.Workloads.names().contains(mode)) {
            throw Fields.bad("mode", "'" + mode + "' is not one of " + String.join(", ", dev.provbench.load.Workloads.names()));
        }
        boolean bulk = "bulk".equals(mode);
        if (bulk) {
            if (count == null) {
                throw Fields.bad("count", "is required with --mode bulk");
            }
            if (count < 1 || count > limits.count()) {
                throw Fields.bad("count", "must be 1 to " + limits.count());
            }
            if (cycles != null) {
                throw Fields.bad("cycles", "is a churn setting: a bulk run's window is its whole wave (--count)");
            }
            if (!"auto".equals(warmup)) {
                throw Fields.bad("warmup", "is a churn setting: a bulk run's window is its whole wave, from the first POST");
            }
            if (ramp != null && !"auto".equals(ramp)) {
                throw Fields.bad("ramp", "is a churn setting: a bulk run sends its POSTs as the client's QPS/burst allows");
            }
            if (waitMode == RunConfig.WaitMode.POLL) {
                throw Fields.bad("waitMode", "poll is not for --mode bulk: it would GET every claim of the wave every "
                        + Waits.POLL_INTERVAL.toMillis() + " ms");
            }
        } else if (count != null) {
            throw Fields.bad("count", "is a --mode bulk setting");
        }
        if (population != null && (population < 0 || population > limits.count())) {
            throw Fields.bad("population", "must be 0 to " + limits.count());
        }
        if (populationMode != null && dev.provbench.load.Population.Mode.of(populationMode) == null) {
            throw Fields.bad("populationMode", "'" + populationMode + "' is not provisioned or prebound");
        }
        if (populationMode != null && population == null) {
            throw Fields.bad("populationMode", "needs --population");
        }
        if (keepPopulation && population == null) {
            throw Fields.bad("keepPopulation", "needs --population");
        }
        Duration d = Fields.duration("duration", duration, false, max);
        if (cycles != null && (cycles < 1 || cycles > limits.cycles())) {
            throw Fields.bad("cycles", "must be 1 to " + limits.cycles());
        }
        Duration warm = "auto".equals(warmup) ? (cycles != null ? Duration.ZERO : null)
                : Fields.duration("warmup", warmup, true, max);
        Duration warmMax = Fields.duration("warmupMax", warmupMax, false, max);
        Duration rampIn = ramp == null || "auto".equals(ramp) ? null : Fields.duration("ramp", ramp, true, max);
        Duration timeout = opTimeout != null ? Fields.duration("opTimeout", opTimeout, false, max)
                : bulk ? bulkOpTimeout(count, max) : Duration.ofMinutes(2);
        Duration step = Fields.duration("interval", interval, false, max);
        Duration grace = Fields.duration("abortGrace", abortGrace, true, max);
        Duration cleanupIn = Fields.duration("cleanupTimeout", cleanupTimeout, false, max);
        Duration stallIn = Fields.duration("stallTimeout", stallTimeout, true, max);
        if (step.compareTo(Duration.ofSeconds(1)) < 0) {
            throw Fields.bad("interval", "must be at least 1s");
        }
        if (namespace == null) {
            namespace = "default";
        }
        if (!namespace.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
            throw Fields.bad("namespace", "'" + namespace + "' is not a namespace name");
        }
        int spread = namespaces == null ? 1 : namespaces;
        if (spread < 1 || spread > dev.provbench.load.RunNamespaces.MAX) {
            throw Fields.bad("namespaces", "must be 1 to " + dev.provbench.load.RunNamespaces.MAX);
        }
        if (!dev.provbench.load.RunNamespaces.fits(namespace, spread)) {
            throw Fields.bad("namespaces", "'" + namespace + "-" + (spread - 1) + "' is longer than a namespace "
                    + "name may be (63 characters): a shorter --namespace");
        }
        if (!local && (storageClass == null || storageClass.isBlank())) {
            throw Fields.bad("storageClass", "is required unless local");
        }
        if (storageClass != null && !local && !Fields.dnsSubdomain(storageClass)) {
            throw Fields.bad("storageClass", "is not a StorageClass name (a DNS subdomain: lower case, digits, '-', '.')");
        }
        java.math.BigDecimal bytes;
        try {
            bytes = size == null ? null : Quantity.getAmountInBytes(new Quantity(size));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw Fields.bad("size", "is not a Kubernetes quantity (e.g. 1Gi)");
        }
        if (bytes == null || bytes.signum() <= 0) {
            throw Fields.bad("size", "must be positive");
        }
        if (bytes.compareTo(limits.sizeBytes()) > 0) {
            throw Fields.bad("size", "must be at most " + limits.size());
        }
        if (!List.of("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod").contains(accessMode)) {
            throw Fields.bad("accessMode", "'" + accessMode + "' is not one of ReadWriteOnce, ReadOnlyMany, "
                    + "ReadWriteMany, ReadWriteOncePod");
        }
        if (waitMode == null) {
            throw Fields.bad("waitMode", "is required");
        }
        Fields.rate("qps", qps, "burst", burst, limits);
        if (provisionerKubeApiQps != null || provisionerKubeApiBurst != null) {
            Fields.rate("provisionerKubeApiQps", provisionerKubeApiQps == null ? RateLimiter.DEFAULT_QPS : provisionerKubeApiQps,
                    "provisionerKubeApiBurst", provisionerKubeApiBurst == null ? RateLimiter.DEFAULT_BURST
                            : provisionerKubeApiBurst, limits);
        }
        if (local) {
            Fields.rate("localProvisionerQps", localProvisionerQps, "localProvisionerBurst", localProvisionerBurst, limits);
            if (localProvisionerReads == null) {
                throw Fields.bad("localProvisionerReads", "is required");
            }
            Fields.duration("localApiLatency", localApiLatency, true, Duration.ofSeconds(1));
        }
        if (minOpsPerSec != null && (minOpsPerSec < 0 || minOpsPerSec.isNaN() || minOpsPerSec.isInfinite())) {
            throw Fields.bad("minOpsPerSec", "must not be negative");
        }
        if (maxFailures != null && maxFailures < 0) {
            throw Fields.bad("maxFailures", "must not be negative");
        }
        if (!(maxFailureRatio >= 0 && maxFailureRatio <= 1)) {
            throw Fields.bad("maxFailureRatio", "must be 0 to 1");
        }
        Double p99 = maxP99 == null ? null : Fields.duration("maxP99", maxP99, false, max).toNanos() / 1e6;
        Path log = Fields.readable("provisionerLog", provisionerLog);
        String podNs = null;
        String podSelector = null;
        if (provisionerPod != null) {
            if (!provisionerPod.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/.{1,1024}")) {
                throw Fields.bad("provisionerPod", "'" + provisionerPod + "' is not NAMESPACE/LABEL-SELECTOR");
            }
            podNs = provisionerPod.substring(0, provisionerPod.indexOf('/'));
            podSelector = provisionerPod.substring(provisionerPod.indexOf('/') + 1);
        }
        if (provisionerContainer == null || !provisionerContainer.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
            throw Fields.bad("provisionerContainer", "is not a container name");
        }
        URI metrics = Fields.httpUrl("provisionerMetrics", provisionerMetrics);
        URI driver = Fields.httpUrl("driverUrl", driverUrl);
        Path audit = Fields.readable("auditLog", auditLog);
        Path kc = Fields.readable("kubeconfig", kubeconfig);
        Map<String, Long> procs = Fields.processes(processes);
        RunConfig cfg = new RunConfig(threads, d, cycles == null ? 0 : cycles, timeout, namespace,
                local ? LocalCluster.STORAGE_CLASS : storageClass, size, accessMode, waitMode, qps, burst, step,
                bulk ? Duration.ZERO : warm, warmMax, grace, cleanupIn, stallIn, bulk ? Duration.ZERO : rampIn, mode,
                bulk ? count : 0, population, population == null ? null
                : populationMode == null ? "provisioned" : populationMode, keepPopulation, spread);
        return new Checked(this, cfg, new ReportBuilder.Slo(minOpsPerSec, maxFailures, p99, maxFailureRatio, requireAlone), kc,
                log, podNs,
                podSelector, metrics, audit, driver, procs, Fields.writable("records", records));
    }
}
