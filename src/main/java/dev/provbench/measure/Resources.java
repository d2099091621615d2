package dev.provbench.measure;

import dev.provbench.evidence.ProcessUsage;
import dev.provbench.load.RunWindow;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.RunReport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code resources}: what each visible component of the pipeline cost. Every source is read in an idle
 * second before the run's first request, once a second through the run, and at the window's edges. CPU is a
 * counter: its increase between two samples follows Prometheus' {@code increase()} — a drop, or a new process
 * start time, is a restart whose new value counts from 0 — and the figure says {@code resets}.
 */
public final class Resources implements Measurement {
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

        Point read(long now) {
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

    /** CPU seconds from {@code a} to {@code b} over the samples between them; [seconds, resets]. */
    private static double[] increase(List<Point> points, Point a, Point b) {
        double sum = 0;
        int resets = 0;
        Point prev = a;
        for (Point p : points) {
            if (p.nanos() <= a.nanos() || p.nanos() > b.nanos()) {
                continue;
            }
            double d = p.s().cpuSeconds() - prev.s().cpuSeconds();
            boolean restarted = d < 0 || p.s().start() != prev.s().start() && !Double.isNaN(p.s().start());
            sum += restarted ? p.s().cpuSeconds() : d;
            resets += restarted ? 1 : 0;
            prev = p;
        }
        return new double[]{sum, resets};
    }

    private static Point lastAtOrBefore(List<Point> points, long nanos) {
        Point best = null;
        for (Point p : points) {
            if (p.nanos() <= nanos) {
                best = p;
            }
        }
        return best;
    }

    @Override
    public void report(ReportDraft d) {
        ReportDraft.Grid g = d.grid();
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
            Double idle = t.idleFrom == null || t.idleTo == null ? null : ReportBuilder.round(
                    increase(points, t.idleFrom, t.idleTo)[0] * 1e9 / (t.idleTo.nanos() - t.idleFrom.nanos()));
            Double cores = null;
            Double perOp = null;
            int resets = 0;
            if (t.windowFrom != null && t.windowTo != null && t.windowTo.nanos() > t.windowFrom.nanos()) {
                double[] inc = increase(points, t.windowFrom, t.windowTo);
                cores = ReportBuilder.round(RunWindow.rate(inc[0], t.windowFrom.nanos(), t.windowTo.nanos()));
                perOp = d.windowOps() == 0 ? null : Math.round(inc[0] / d.windowOps() * 1e6) / 1e6;
                resets = (int) inc[1];
            }
            long peak = points.stream().mapToLong(p -> p.s().rssBytes()).max().orElse(0);
            double[] perRow = new double[g.rows()];
            for (int i = 0; i < perRow.length; i++) {
                Point a = lastAtOrBefore(points, g.start(i));
                Point b = lastAtOrBefore(points, g.end(i));
                perRow[i] = a == null || b == null || b.nanos() <= a.nanos() ? Double.NaN
                        : RunWindow.rate(increase(points, a, b)[0], a.nanos(), b.nanos());
            }
            d.resources(e.getKey(), new RunReport.Resources(idle, cores, perOp,
                    t.idleTo == null ? null : t.idleTo.s().rssBytes(), peak, t.usage.source(),
                    resets == 0 ? null : resets, t.note), perRow);
            if (resets > 0) {
                d.warn(e.getKey() + " restarted during the window (" + resets + " reset(s)): its CPU figures sum "
                        + "the segments");
            }
        }
    }
}
