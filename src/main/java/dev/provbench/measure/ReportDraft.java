package dev.provbench.measure;

import dev.provbench.load.RunWindow;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.RunReport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The report while measurements fill it in: each puts its own section; the time series is assembled from
 * columns on one grid ({@link Grid}: {@code --interval} steps from the run start to the end of the drain).
 */
public final class ReportDraft {

    /** The time-series grid. Row {@code i} covers {@code [start(i), end(i))}. */
    public record Grid(RunWindow window, long stepNanos, long endNanos) {
        public int rows() {
            return (int) Math.max(0, Math.min(100_000,
                    (endNanos - window.runStartNanos() + stepNanos - 1) / stepNanos));
        }

        public long start(int i) {
            return window.runStartNanos() + i * stepNanos;
        }

        public long end(int i) {
            return Math.min(start(i) + stepNanos, endNanos);
        }

        /** warmup, window, drain, or the phases an interval spans joined by '+'. */
        public String phase(int i) {
            List<String> p = new ArrayList<>(3);
            if (start(i) < window.windowStartNanos()) {
                p.add("warmup");
            }
            if (end(i) > window.windowStartNanos() && start(i) < window.windowEndNanos()) {
                p.add("window");
            }
            if (end(i) > window.windowEndNanos()) {
                p.add("drain");
            }
            return String.join("+", p);
        }

        public boolean wholeInWindow(int i) {
            return start(i) >= window.windowStartNanos() && start(i) + stepNanos <= window.windowEndNanos();
        }
    }

    private final Grid grid;
    private RunReport.Window window;
    private RunReport.Ops ops;
    private RunReport.Latencies latency;
    private RunReport.Stages stages;
    private RunReport.Requests requests;
    private RunReport.Throttling throttling;
    private RunReport.Driver driver;
    private Long throttlingLines;
    private String logSource;
    private Map<String, Double> provisionerMetrics;
    private Integer metricsResets;
    private String metricsSource;
    private final List<String> provisionerNotes = new ArrayList<>();
    private final Map<String, RunReport.Requests> components = new TreeMap<>();
    private final Map<String, RunReport.Resources> resources = new LinkedHashMap<>();
    private final List<String> warnings = new ArrayList<>();
    private long[] creates;
    private long[] deletes;
    private long[] failures;
    private long[] throttled;
    private final Map<String, double[]> cpu = new LinkedHashMap<>();

    public ReportDraft(Grid grid) {
        this.grid = grid;
    }

    public Grid grid() {
        return grid;
    }

    public RunWindow runWindow() {
        return grid.window();
    }

    /** Creates + deletes completed in the window: the denominator of every per-op figure. */
    public long windowOps() {
        return ops == null ? 0 : ops.creates() + ops.deletes();
    }

    /** {@code count / windowOps()}, or null without ops. */
    public Double perOp(double count) {
        long n = windowOps();
        return n == 0 ? null : ReportBuilder.round(count / n);
    }

    /** The ops section, once {@code Operations} has put it (it reports first); else null. */
    public RunReport.Ops ops() {
        return ops;
    }

    public void window(RunReport.Window w) {
        window = w;
    }

    public void ops(RunReport.Ops o, RunReport.Latencies l, long[] creates, long[] deletes, long[] failures) {
        this.ops = o;
        this.latency = l;
        this.creates = creates;
        this.deletes = deletes;
        this.failures = failures;
    }

    private RunReport.ProvisionerBucket provisionerBucket;
    private RunReport.ServerThrottling server;
    private Map<String, Map<String, Long>> flows;

    /** {@code throttling.provisioner}. */
    public void provisionerBucket(RunReport.ProvisionerBucket b) {
        provisionerBucket = b;
    }

    /** {@code throttling.server} (kube-apiserver's /metrics). */
    public void serverThrottling(RunReport.ServerThrottling s) {
        server = s;
    }

    /** {@code throttling.server.clients}: per component, its requests by flow schema → priority level. */
    public void flows(Map<String, Map<String, Long>> f) {
        flows = f;
    }

    /** {@code latency.stages}. */
    public void stages(RunReport.Stages s) {
        stages = s;
    }

    public void requests(RunReport.Requests r, RunReport.Throttling t, long[] throttledSeries) {
        requests = r;
        throttling = t;
        throttled = throttledSeries;
    }

    public void driver(RunReport.Driver d) {
        driver = d;
    }

    public void throttlingLines(Long lines, String source) {
        throttlingLines = lines;
        logSource = source;
    }

    public void provisionerMetrics(Map<String, Double> m, String source, int resets) {
        provisionerMetrics = m;
        metricsResets = resets == 0 ? null : resets;
        metricsSource = source;
    }

    public void provisionerNote(String note) {
        provisionerNotes.add(note);
    }

    public void component(String name, RunReport.Requests r) {
        components.put(name, r);
    }

    public void resources(String component, RunReport.Resources r, double[] cpuCoresPerRow) {
        resources.put(component, r);
        if (cpuCoresPerRow != null) {
            cpu.put(component, cpuCoresPerRow);
        }
    }

    public void warn(String warning) {
        warnings.add(warning);
    }

    private static long at(long[] a, int i) {
        return a == null || i >= a.length ? 0 : a[i];
    }

    private List<RunReport.Interval> series() {
        List<RunReport.Interval> out = new ArrayList<>();
        for (int i = 0; i < grid.rows(); i++) {
            long c = at(creates, i);
            long d = at(deletes, i);
            Map<String, Double> cores = null;
            if (!cpu.isEmpty()) {
                cores = new LinkedHashMap<>();
                for (Map.Entry<String, double[]> e : cpu.entrySet()) {
                    if (i < e.getValue().length && !Double.isNaN(e.getValue()[i])) {
                        cores.put(e.getKey(), ReportBuilder.round(e.getValue()[i]));
                    }
                }
            }
            out.add(new RunReport.Interval(ReportBuilder.round((grid.end(i) - grid.window().runStartNanos()) / 1e9),
                    grid.phase(i), c, d, at(failures, i),
                    ReportBuilder.round(RunWindow.rate(c + d, grid.start(i), grid.end(i))), at(throttled, i), cores));
        }
        return out;
    }

    /** The finished report; thresholds are checked here, on the window's figures. */
    public RunReport build(String version, String mode, String runId, RunReport.Config config,
            RunReport.Cleanup cleanup, ReportBuilder.Slo slo) {
        RunReport.Provisioner provisioner = throttlingLines == null && provisionerMetrics == null
                && provisionerNotes.isEmpty() ? null : new RunReport.Provisioner(throttlingLines, logSource,
                provisionerMetrics, metricsSource, metricsResets, provisionerNotes.isEmpty() ? null : String.join("; ",
                provisionerNotes));
        RunReport.Latencies lat = latency == null || stages == null ? latency
                : new RunReport.Latencies(latency.create(), latency.delete(), stages);
        List<RunReport.Threshold> thresholds = ReportBuilder.thresholds(slo, ops, lat);
        RunReport.Throttling thr = throttling;
        if (thr != null && (provisionerBucket != null || server != null || flows != null)) {
            RunReport.ProvisionerBucket b = provisionerBucket == null ? null : new RunReport.ProvisionerBucket(
                    provisionerBucket.method(), provisionerBucket.qps(), provisionerBucket.burst(),
                    provisionerBucket.assumed(), provisionerBucket.requests(), provisionerBucket.atLimit(),
                    provisionerBucket.atLimitShare(), provisionerBucket.boundShare(), provisionerBucket.verdict(),
                    throttlingLines);
            RunReport.ServerThrottling sv = server == null && flows == null ? null : server == null
                    ? new RunReport.ServerThrottling(false, "kube-apiserver's /metrics not read (--local, or no "
                    + "cluster)", null, null, flows, null, null)
                    : new RunReport.ServerThrottling(server.readable(), server.reason(), server.source(),
                    server.priorityLevels(), flows, server.rejected(), server.resets());
            thr = new RunReport.Throttling(thr.throttled(), thr.over50ms(), thr.over1s(), thr.waitSeconds(),
                    thr.waitP50Ms(), thr.waitP99Ms(), thr.waitMaxMs(), thr.deferred(), b, sv);
        }
        Boolean passed = thresholds == null ? null : thresholds.stream().allMatch(RunReport.Threshold::passed);
        return new RunReport(RunReport.SCHEMA_VERSION, new RunReport.Tool("provbench", version), mode, runId, passed,
                config, window, ops, lat, requests, thr, driver, provisioner,
                components.isEmpty() ? null : components, resources.isEmpty() ? null : resources, cleanup,
                thresholds, warnings.isEmpty() ? null : List.copyOf(warnings), series());
    }
}
