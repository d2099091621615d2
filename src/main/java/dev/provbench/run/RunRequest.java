package dev.provbench.run;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.provbench.load.RunConfig;
import dev.provbench.local.LocalCluster;
import dev.provbench.report.ReportBuilder;
import dev.provbench.util.Durations;
import io.fabric8.kubernetes.api.model.Quantity;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Everything a load run can be told, whether it comes from {@code provbench run}'s flags or as JSON to
 * {@code POST /api/runs}. Field names are the JSON names; the flag is the same name in kebab case
 * ({@code opTimeout} ↔ {@code --op-timeout}). Defaults are those of {@code provbench run}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RunRequest {
    public boolean local;
    public int threads = 64;
    public String duration = "5m";
    public Long cycles;
    public String opTimeout = "2m";
    /** null = $PROVBENCH_NAMESPACE, else "default" */
    public String namespace;
    public String kubeconfig;
    public String storageClass;
    public String size = "1Gi";
    public String accessMode = "ReadWriteOnce";
    public String waitMode = "informer";
    public double qps = 5;
    public int burst = 10;
    public double localProvisionerQps = 5;
    public int localProvisionerBurst = 10;
    public String localProvisionerReads = "lister";
    public String interval = "10s";
    public Double minOpsPerSec;
    public Long maxFailures;
    public String maxP99;
    public String provisionerLog;
    public String provisionerPod;
    public String provisionerContainer = "csi-provisioner";
    public String provisionerMetrics;
    public String auditLog;
    public String driverUrl;

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

    /** A checked request: what the load run, the evidence collectors and the thresholds need. */
    public record Checked(RunRequest request, RunConfig config, ReportBuilder.Slo slo, Path kubeconfig,
                          Path provisionerLog, String provisionerPodNamespace, String provisionerPodSelector,
                          URI provisionerMetrics, Path auditLog, URI driverUrl) {
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
            "driverUrl", "PROVBENCH_DRIVER_URL");

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
        return this;
    }

    private static String orEnv(String value, Map<String, String> env, String field) {
        String e = env.get(ENVIRONMENT.get(field));
        return value != null || e == null || e.isBlank() ? value : e;
    }

    private static Invalid bad(String field, String message) {
        return new Invalid(field, message);
    }

    private static Duration positive(String field, String value) {
        if (value == null) {
            throw bad(field, "is required");
        }
        try {
            Duration d = Durations.parse(value);
            if (d.isZero() || d.isNegative()) {
                throw bad(field, "must be greater than 0");
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw bad(field, e.getMessage());
        }
    }

    private static void rate(String qpsField, double q, String burstField, int b) {
        if (Double.isNaN(q) || Double.isInfinite(q)) {
            throw bad(qpsField, "must be a number");
        }
        if (b < 0) {
            throw bad(burstField, "must not be negative");
        }
        if (q > 0 && b == 0) {
            throw bad(burstField, "must be at least 1 when " + qpsField + " is positive");
        }
    }

    private static Path readable(String field, String value) {
        if (value == null) {
            return null;
        }
        Path p = Path.of(value);
        if (!Files.isReadable(p) || Files.isDirectory(p)) {
            throw bad(field, value + " is not a readable file");
        }
        return p;
    }

    private static URI httpUrl(String field, String value) {
        if (value == null) {
            return null;
        }
        try {
            URI u = new URI(value);
            if (u.getScheme() == null || !u.getScheme().matches("https?") || u.getHost() == null) {
                throw bad(field, "'" + value + "' is not an http(s) URL");
            }
            return u;
        } catch (URISyntaxException e) {
            throw bad(field, "'" + value + "' is not an http(s) URL");
        }
    }

    /** Checks every field before anything starts; the first bad one is thrown, named. */
    public Checked check() {
        if (threads < 1) {
            throw bad("threads", "must be at least 1");
        }
        Duration d = positive("duration", duration);
        if (cycles != null && cycles < 1) {
            throw bad("cycles", "must be at least 1");
        }
        Duration timeout = positive("opTimeout", opTimeout);
        Duration step = positive("interval", interval);
        if (namespace == null) {
            namespace = "default";
        }
        if (!namespace.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
            throw bad("namespace", "'" + namespace + "' is not a namespace name");
        }
        if (!local && (storageClass == null || storageClass.isBlank())) {
            throw bad("storageClass", "is required unless local");
        }
        try {
            if (size == null || Quantity.getAmountInBytes(new Quantity(size)).signum() <= 0) {
                throw bad("size", "must be positive");
            }
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw bad("size", "'" + size + "' is not a Kubernetes quantity (e.g. 1Gi)");
        }
        if (!List.of("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod").contains(accessMode)) {
            throw bad("accessMode", "'" + accessMode + "' is not one of ReadWriteOnce, ReadOnlyMany, "
                    + "ReadWriteMany, ReadWriteOncePod");
        }
        RunConfig.WaitMode mode;
        if ("informer".equals(waitMode)) {
            mode = RunConfig.WaitMode.INFORMER;
        } else if ("poll".equals(waitMode)) {
            mode = RunConfig.WaitMode.POLL;
        } else {
            throw bad("waitMode", "'" + waitMode + "' is not informer or poll");
        }
        rate("qps", qps, "burst", burst);
        if (local) {
            rate("localProvisionerQps", localProvisionerQps, "localProvisionerBurst", localProvisionerBurst);
            if (!List.of("lister", "get").contains(localProvisionerReads)) {
                throw bad("localProvisionerReads", "'" + localProvisionerReads + "' is not lister or get");
            }
        }
        if (minOpsPerSec != null && (minOpsPerSec < 0 || minOpsPerSec.isNaN())) {
            throw bad("minOpsPerSec", "must not be negative");
        }
        if (maxFailures != null && maxFailures < 0) {
            throw bad("maxFailures", "must not be negative");
        }
        Double p99 = maxP99 == null ? null : positive("maxP99", maxP99).toNanos() / 1e6;
        Path log = readable("provisionerLog", provisionerLog);
        String podNs = null;
        String podSelector = null;
        if (provisionerPod != null) {
            if (!provisionerPod.matches("[^/]+/.+")) {
                throw bad("provisionerPod", "'" + provisionerPod + "' is not NAMESPACE/LABEL-SELECTOR");
            }
            podNs = provisionerPod.substring(0, provisionerPod.indexOf('/'));
            podSelector = provisionerPod.substring(provisionerPod.indexOf('/') + 1);
        }
        if (provisionerContainer == null || provisionerContainer.isBlank()) {
            throw bad("provisionerContainer", "must not be empty");
        }
        URI metrics = httpUrl("provisionerMetrics", provisionerMetrics);
        URI driver = httpUrl("driverUrl", driverUrl);
        Path audit = readable("auditLog", auditLog);
        Path kc = readable("kubeconfig", kubeconfig);
        RunConfig cfg = new RunConfig(threads, d, cycles == null ? 0 : cycles, timeout, namespace,
                local ? LocalCluster.STORAGE_CLASS : storageClass, size, accessMode, mode, qps, burst, step);
        return new Checked(this, cfg, new ReportBuilder.Slo(minOpsPerSec, maxFailures, p99), kc, log, podNs,
                podSelector, metrics, audit, driver);
    }
}
