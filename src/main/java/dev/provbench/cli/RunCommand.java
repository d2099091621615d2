package dev.provbench.cli;

import dev.provbench.report.Formats;
import dev.provbench.report.ReportFormat;
import dev.provbench.report.RunReport;
import dev.provbench.run.RunExecution;
import dev.provbench.run.RunExecutor;
import dev.provbench.run.RunRegistry;
import dev.provbench.run.RunRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
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

    @Option(names = "--namespace", defaultValue = "${env:PROVBENCH_NAMESPACE:-default}",
            description = "Namespace of the PVCs (default $PROVBENCH_NAMESPACE, else default).")
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

    @Option(names = "--format", defaultValue = "table", description = "table, json, markdown, bench or html "
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

    @Option(names = "--provisioner-pod", defaultValue = "${env:PROVBENCH_PROVISIONER_POD}",
            description = "NAMESPACE/LABEL-SELECTOR of csi-provisioner's pod(s): count throttling lines in their "
            + "logs (default $PROVBENCH_PROVISIONER_POD).")
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

    private final RunExecutor executor;
    private final RunRegistry runs;

    public RunCommand(RunExecutor executor, RunRegistry runs) {
        this.executor = executor;
        this.runs = runs;
    }

    private ParameterException bad(String option, String message) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + message);
    }

    private boolean given(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /** The flags as a {@link RunRequest}, the same object {@code POST /api/runs} takes as JSON. */
    RunRequest request() {
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
            if (!given("--provisioner-pod")) {
                provisionerPod = null;
            }
        }
        RunRequest r = new RunRequest();
        r.local = local;
        r.threads = threads;
        r.duration = duration;
        r.cycles = cycles;
        r.opTimeout = opTimeout;
        r.namespace = namespace;
        r.kubeconfig = kubeconfig == null ? null : kubeconfig.toString();
        r.storageClass = storageClass;
        r.size = size;
        r.accessMode = accessMode;
        r.waitMode = waitMode;
        r.qps = qps;
        r.burst = burst;
        r.localProvisionerQps = localProvisionerQps;
        r.localProvisionerBurst = localProvisionerBurst;
        r.localProvisionerReads = localProvisionerReads;
        r.interval = interval;
        r.minOpsPerSec = minOpsPerSec;
        r.maxFailures = maxFailures;
        r.maxP99 = maxP99;
        r.provisionerLog = provisionerLog == null ? null : provisionerLog.toString();
        r.provisionerPod = provisionerPod;
        r.provisionerContainer = provisionerContainer;
        r.provisionerMetrics = provisionerMetrics == null ? null : provisionerMetrics.toString();
        r.auditLog = auditLog == null ? null : auditLog.toString();
        r.driverUrl = driverUrl == null ? null : driverUrl.toString();
        return r;
    }

    /** Checks every flag before anything starts; a bad one is exit code 2 naming it. */
    RunRequest.Checked validate() {
        if (Formats.byName(format).isEmpty()) {
            throw bad("--format", "'" + format + "' is not one of " + Formats.names());
        }
        if (out != null && out.toAbsolutePath().getParent() != null
                && !Files.isDirectory(out.toAbsolutePath().getParent())) {
            throw bad("--out", "directory " + out.toAbsolutePath().getParent() + " does not exist");
        }
        try {
            return request().check();
        } catch (RunRequest.Invalid e) {
            if (e.field().equals("storageClass") && !local) {
                throw new ParameterException(spec.commandLine(), "Missing required option: '--storage-class' "
                        + "(or use --local)");
            }
            throw bad(e.flag(), e.getMessage());
        }
    }

    @Override
    public Integer call() throws Exception {
        RunRequest.Checked checked = validate();
        PrintWriter err = spec.commandLine().getErr();
        RunExecution e = new RunExecution(checked);
        Optional<RunExecution> other = runs.begin(e);
        if (other.isPresent()) {
            err.println("provbench run: run " + other.get().id() + " is active in this process");
            return ExitCodes.FAILED;
        }
        try {
            executor.execute(e, line -> {
                err.println(line.startsWith("provbench run") || line.startsWith("[") ? line : "provbench run: " + line);
                err.flush();
            });
        } finally {
            runs.end(e);
        }
        if (e.report() != null) {
            write(e.report());
        }
        if (e.state() == RunExecution.State.ABORTED && e.report() != null) {
            err.println("provbench run: aborted; the report covers the time until the abort");
        }
        return e.exitCode();
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
