package dev.provbench.measure;

import dev.provbench.evidence.CounterTrack;
import dev.provbench.evidence.ProcessUsage;
import dev.provbench.load.RunWindow;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.HtmlFormat;
import dev.provbench.report.Rows;
import dev.provbench.report.RunReport;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Metric;
import dev.provbench.report.SectionKind.Row;
import dev.provbench.report.SectionKind.Unit;
import com.fasterxml.jackson.core.type.TypeReference;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code resources}: what each visible component of the pipeline cost. Every source is read in an idle
 * second before the run's first request, once a second through the run, and at the window's edges. CPU is a
 * counter: its increase is {@link CounterTrack}'s (Prometheus' {@code increase()}, segment by segment), and the
 * figure says {@code resets}.
 */
public final class Resources implements Measurement {

    /**
     * What one component of the pipeline cost.
     *
     * @param cpuCoresIdle    CPU seconds per second in the idle sample before the first request
     * @param cpuCoresWindow  CPU seconds per second over the window
     * @param cpuSecondsPerOp CPU seconds in the window / ops in the window
     * @param rssBytesIdle    resident memory in the idle sample
     * @param rssBytesPeak    the largest resident memory sampled (once a second) from start to finish
     */
    public record Component(Double cpuCoresIdle, Double cpuCoresWindow, Double cpuSecondsPerOp, Long rssBytesIdle,
                            Long rssBytesPeak, String source, Integer resets, String note) {
    }

    /** {@code resources}: by component, in the order they were added. */
    public static final SectionKind<Map<String, Component>> RESOURCES = SectionKind.of("resources",
            new TypeReference<Map<String, Component>>() {
            }).scope(Scope.RESOURCES).rows(m -> {
                List<Row> rows = new ArrayList<>();
                m.forEach((name, x) -> rows.add(new Row("resources", name, row(x))));
                return rows;
            }).metrics(List.of(Unit.lower("tool-cpu-ms/op")), m -> {
                Component tool = m.get("tool");
                return tool == null || tool.cpuSecondsPerOp() == null ? List.of()
                        : List.of(Metric.of("tool-cpu-ms/op", tool.cpuSecondsPerOp() * 1000));
            }).html(Resources::cpuChart);

    private static String row(Component x) {
        return (x.cpuCoresWindow() == null ? "cpu -" : "cpu " + Rows.num(x.cpuCoresWindow()) + " cores") + " (idle "
                + (x.cpuCoresIdle() == null ? "-" : Rows.num(x.cpuCoresIdle())) + "), "
                + (x.cpuSecondsPerOp() == null ? "-" : Rows.num(x.cpuSecondsPerOp() * 1000)) + " ms/op, rss idle "
                + Rows.bytes(x.rssBytesIdle()) + " peak " + Rows.bytes(x.rssBytesPeak())
                + (x.resets() == null ? "" : ", resets: " + x.resets()) + (x.note() == null ? "" : " — " + x.note());
    }

    /** CPU cores per interval, one line per component, with a legend. */
    static String cpuChart(Map<String, Component> m, RunReport r) {
        List<RunReport.Interval> ts = r.timeseries();
        if (ts == null || ts.isEmpty()) {
            return "";
        }
        List<String> names = List.copyOf(m.keySet());
        double[] x = ts.stream().mapToDouble(RunReport.Interval::t).toArray();
        double[][] ys = new double[names.size()][];
        for (int k = 0; k < names.size(); k++) {
            String n = names.get(k);
            ys[k] = ts.stream().mapToDouble(i -> i.cpuCores() == null || !i.cpuCores().containsKey(n) ? 0
                    : i.cpuCores().get(n)).toArray();
        }
        StringBuilder legend = new StringBuilder("<p id=\"cpu-legend\">");
        for (int k = 0; k < names.size(); k++) {
            legend.append("<span style=\"color:").append(HtmlFormat.PALETTE[k % HtmlFormat.PALETTE.length])
                    .append("\">&#9632; ").append(HtmlFormat.esc(names.get(k))).append("</span> ");
        }
        return "<h2>CPU by component</h2>\n" + HtmlFormat.chart("cpu-chart", "CPU cores per interval, by component", x, ys, HtmlFormat.PALETTE)
                + legend + "</p>\n";
    }

    /** How long the idle sample lasts. */
    static final long IDLE_MILLIS = 1000;

    private record Point(long nanos, ProcessUsage.Sample s) {
    }

    private static final class Track {
        final String note;
        final ProcessUsage usage;
        final List<Point> points = new ArrayList<>();
        Point idleFrom;
        Point idleTo;
        Point windowFrom;
        Point windowTo;

        Track(ProcessUsage usage, String note) {
            this.usage = usage;
            this.note = note;
        }

        /**
         * One read, stamped when it starts. Reads of a track never overlap (the sampler and the window's edges
         * run on different threads): overlapping reads could finish out of order, and a counter would then
         * seem to drop — a false restart.
         */
        synchronized Point read(long ignored) {
            long now = System.nanoTime();
            ProcessUsage.Sample s = usage.read();
            if (s == null) {
                return null;
            }
            Point p = new Point(now, s);
            synchronized (points) {
                points.add(p);
            }
            return p;
        }
    }

    private final Map<String, Track> tracks = new LinkedHashMap<>();

    /** Adds a component; {@code note} (may be null) qualifies what it covers. */
    public Resources add(String component, ProcessUsage usage, String note) {
        tracks.put(component, new Track(usage, note));
        return this;
    }

    @Override
    public void idle() throws InterruptedException {
        tracks.values().forEach(t -> t.idleFrom = t.read(System.nanoTime()));
        Thread.sleep(IDLE_MILLIS);
        tracks.values().forEach(t -> t.idleTo = t.read(System.nanoTime()));
    }

    @Override
    public void sample(long nanos) {
        tracks.values().forEach(t -> t.read(nanos));
    }

    @Override
    public void windowStart(RunWindow w) {
        tracks.values().forEach(t -> t.windowFrom = t.read(System.nanoTime()));
    }

    @Override
    public void windowEnd(RunWindow w) {
        tracks.values().forEach(t -> t.windowTo = t.read(System.nanoTime()));
    }

    @Override
    public void finish(RunWindow w) {
        tracks.values().forEach(t -> t.read(System.nanoTime()));
    }

    private static final String CPU = "cpu";

    /** The CPU counter's reads as a {@link CounterTrack}: the one definition of a counter's increase. */
    private static CounterTrack cpu(List<Point> points) {
        CounterTrack track = new CounterTrack();
        points.forEach(p -> track.add(p.nanos(), Map.of(CPU, p.s().cpuSeconds()), p.s().start()));
        return track;
    }

    /** CPU cores between the reads at or before {@code from} and {@code to}; NaN without two distinct reads. */
    private static double cores(CounterTrack track, long from, long to) {
        CounterTrack.Increase i = track.increase(from, to);
        return i == null || i.toNanos() <= i.fromNanos() ? Double.NaN
                : RunWindow.rate(i.get(CPU), i.fromNanos(), i.toNanos());
    }

    @Override
    public void report(ReportDraft d) {
        ReportDraft.Grid g = d.grid();
        Map<String, Component> out = new LinkedHashMap<>();
        for (Map.Entry<String, Track> e : tracks.entrySet()) {
            Track t = e.getValue();
            List<Point> points;
            synchronized (t.points) {
                points = List.copyOf(t.points);
            }
            if (points.isEmpty()) {
                d.warn("resources of " + e.getKey() + ": " + t.usage.source() + " could not be read");
                continue;
            }
            CounterTrack series = cpu(points);
            Double idle = null;
            if (t.idleFrom != null && t.idleTo != null) {
                double c = cores(series, t.idleFrom.nanos(), t.idleTo.nanos());
                idle = Double.isNaN(c) ? null : ReportBuilder.round(c);
            }
            Double cores = null;
            Double perOp = null;
            int resets = 0;
            if (t.windowFrom != null && t.windowTo == null) {
                d.warn("resources of " + e.getKey() + ": " + t.usage.source() + " could not be read at the window's "
                        + "end (the process went away, or restarted under another PID): no window figures");
            }
            if (t.windowFrom != null && t.windowTo != null && t.windowTo.nanos() > t.windowFrom.nanos()) {
                CounterTrack.Increase inc = series.increase(t.windowFrom.nanos(), t.windowTo.nanos());
                double cpu = inc.get(CPU);
                cores = ReportBuilder.round(RunWindow.rate(cpu, inc.fromNanos(), inc.toNanos()));
                perOp = d.windowOps() == 0 ? null : Math.round(cpu / d.windowOps() * 1e6) / 1e6;
                resets = inc.resets();
            }
            long peak = points.stream().mapToLong(p -> p.s().rssBytes()).max().orElse(0);
            double[] perRow = new double[g.rows()];
            for (int i = 0; i < perRow.length; i++) {
                perRow[i] = cores(series, g.start(i), g.end(i));
            }
            out.put(e.getKey(), new Component(idle, cores, perOp, t.idleTo == null ? null : t.idleTo.s().rssBytes(),
                    peak, t.usage.source(), resets == 0 ? null : resets, t.note));
            d.cpuColumn(e.getKey(), perRow);
            if (resets > 0) {
                d.warn(e.getKey() + " restarted during the window (" + resets + " reset(s)): its CPU figures sum "
                        + "the segments");
            }
        }
        d.put(RESOURCES, out.isEmpty() ? null : out);
    }
}
