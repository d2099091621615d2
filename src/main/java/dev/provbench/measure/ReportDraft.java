package dev.provbench.measure;

import dev.provbench.load.RunWindow;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.RunReport;
import dev.provbench.report.Section;
import dev.provbench.report.SectionKind;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report while measurements fill it in: each {@link #put}s its own sections (of the kinds it declares) and
 * may read the sections measurements before it in the registry put ({@link #get}); the time series is assembled
 * from named columns on one grid ({@link Grid}: {@code --interval} steps from the run start to the end of the
 * drain); warnings are collected from all.
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

    /** The time series' count columns, by name. */
    public enum Column { CREATES, DELETES, FAILURES, THROTTLED }

    private final Grid grid;
    private final List<Section<?>> sections = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final Map<Column, long[]> columns = new EnumMap<>(Column.class);
    private final Map<String, double[]> cpu = new LinkedHashMap<>();

    public ReportDraft(Grid grid) {
        this.grid = grid;
    }

    /** The kinds of the sections put so far, in order. */
    List<SectionKind<?>> kinds() {
        return sections.stream().<SectionKind<?>>map(Section::kind).toList();
    }

    public Grid grid() {
        return grid;
    }

    public RunWindow runWindow() {
        return grid.window();
    }

    /** Puts a section; a null value puts nothing. */
    public <T> void put(SectionKind<T> kind, T value) {
        if (value != null) {
            sections.add(new Section<>(kind, value));
        }
    }

    /** The first section of {@code kind} put so far, or null. */
    public <T> T get(SectionKind<T> kind) {
        for (Section<?> s : sections) {
            if (s.kind() == kind) {
                @SuppressWarnings("unchecked") T v = (T) s.value();
                return v;
            }
        }
        return null;
    }

    /** Creates + deletes completed in the window: the denominator of every per-op figure. */
    public long windowOps() {
        Operations.Ops ops = get(Operations.OPS);
        return ops == null ? 0 : ops.creates() + ops.deletes();
    }

    /** {@code count / windowOps()}, or null without ops. */
    public Double perOp(double count) {
        long n = windowOps();
        return n == 0 ? null : ReportBuilder.round(count / n);
    }

    /** A count column of the time series, one value per grid row. */
    public void column(Column c, long[] perRow) {
        columns.put(c, perRow);
    }

    /** A component's CPU cores per grid row ({@code NaN}: not sampled). */
    public void cpuColumn(String component, double[] coresPerRow) {
        cpu.put(component, coresPerRow);
    }

    public void warn(String warning) {
        warnings.add(warning);
    }

    private long at(Column c, int i) {
        long[] a = columns.get(c);
        return a == null || i >= a.length ? 0 : a[i];
    }

    private List<RunReport.Interval> series() {
        List<RunReport.Interval> out = new ArrayList<>();
        for (int i = 0; i < grid.rows(); i++) {
            long c = at(Column.CREATES, i);
            long d = at(Column.DELETES, i);
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
                    grid.phase(i), c, d, at(Column.FAILURES, i),
                    ReportBuilder.round(RunWindow.rate(c + d, grid.start(i), grid.end(i))), at(Column.THROTTLED, i),
                    cores));
        }
        return out;
    }

    /**
     * The thresholds of {@code slo} against the window's figures ({@code --max-p99}: the larger of the create
     * and delete total p99); null when none is set or there is no ops section.
     */
    static List<RunReport.Threshold> thresholds(ReportBuilder.Slo slo, Operations.Ops ops, Operations.Latencies lat) {
        return thresholds(slo, ops, lat, null);
    }

    /**
     * As above; {@code --require-alone}: {@code require-alone} (limit 0) vs {@code window.sharedWith}'s activity of
     * other tenants, −1 (failed) when nothing could tell.
     */
    static List<RunReport.Threshold> thresholds(ReportBuilder.Slo slo, Operations.Ops ops, Operations.Latencies lat,
            SharedCluster.SharedWith shared) {
        if (slo == null || ops == null) {
            return null;
        }
        List<RunReport.Threshold> out = new ArrayList<>();
        long completed = ops.creates() + ops.deletes();
        out.add(new RunReport.Threshold("min-ops-completed", 1, completed, completed >= 1));
        double ratio = completed + ops.failures() == 0 ? 0 : ReportBuilder.round((double) ops.failures()
                / (completed + ops.failures()));
        out.add(new RunReport.Threshold("max-failure-ratio", slo.maxFailureRatio(), ratio,
                ratio <= slo.maxFailureRatio()));
        if (slo.minOpsPerSec() != null) {
            out.add(new RunReport.Threshold("min-ops-per-sec", slo.minOpsPerSec(), ops.opsPerSecond(),
                    ops.opsPerSecond() >= slo.minOpsPerSec()));
        }
        if (slo.maxFailures() != null) {
            out.add(new RunReport.Threshold("max-failures", slo.maxFailures(), ops.failures(),
                    ops.failures() <= slo.maxFailures()));
        }
        if (slo.maxP99Ms() != null && lat != null) {
            double p99 = Math.max(lat.create().total().p99(), lat.delete().total().p99());
            out.add(new RunReport.Threshold("max-p99-ms", slo.maxP99Ms(), p99, p99 <= slo.maxP99Ms()));
        }
        if (slo.requireAlone()) {
            Long activity = shared == null ? null : shared.activity();
            out.add(new RunReport.Threshold("require-alone", 0, activity == null ? -1 : activity,
                    activity != null && activity == 0));
        }
        return out;
    }

    /**
     * The finished report; thresholds are checked here, on the window's figures.
     *
     * @param config the checked run configuration, serialized
     */
    public RunReport build(String version, String mode, String runId, JsonNode config, RunReport.Cleanup cleanup,
            ReportBuilder.Slo slo) {
        List<RunReport.Threshold> thresholds = thresholds(slo, get(Operations.OPS), get(Operations.LATENCY),
                get(SharedCluster.SHARED_WITH));
        Boolean passed = thresholds == null ? null : thresholds.stream().allMatch(RunReport.Threshold::passed);
        return RunReport.builder().tool(new RunReport.Tool("provbench", version)).mode(mode).runId(runId)
                .passed(passed).config(config).sections(sections).cleanup(cleanup).thresholds(thresholds)
                .warnings(warnings).timeseries(series()).build();
    }
}
