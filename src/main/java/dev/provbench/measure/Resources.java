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

    /**
     * A track's reads in time order with the CPU counter's running increase: {@code cpu[k]} is the CPU seconds
     * from the first read to read {@code k}, {@code resets[k]} the restarts seen on the way. A drop, or a new
     * process start time, is a restart whose new value counts from 0 (Prometheus' {@code increase()}).
     */
    private record Series(long[] nanos, double[] cpu, int[] resets) {
        static Series of(List<Point> points) {
            List<Point> sorted = new ArrayList<>(points);
            sorted.sort(java.util.Comparator.comparingLong(Point::nanos));
            int n = sorted.size();
            long[] t = new long[n];
            double[] cpu = new double[n];
            int[] resets = new int[n];
            for (int k = 0; k < n; k++) {
                ProcessUsage.Sample s = sorted.get(k).s();
                t[k] = sorted.get(k).nanos();
                if (k > 0) {
                    ProcessUsage.Sample prev = sorted.get(k - 1).s();
                    double delta = s.cpuSeconds() - prev.cpuSeconds();
                    boolean restarted = delta < 0 || s.start() != prev.start() && !Double.isNaN(s.start());
                    cpu[k] = cpu[k - 1] + (restarted ? s.cpuSeconds() : delta);
                    resets[k] = resets[k - 1] + (restarted ? 1 : 0);
                }
            }
            return new Series(t, cpu, resets);
        }

        /** Index of the last read at or before {@code at}; -1 if none. */
        int atOrBefore(long at) {
            int i = java.util.Arrays.binarySearch(nanos, at);
            if (i >= 0) {
                while (i + 1 < nanos.length && nanos[i + 1] == at) {
                    i++;
                }
                return i;
            }
            return -i - 2;
        }

        /** CPU cores between the reads at or before {@code from} and {@code to}; NaN without two distinct reads. */
        double cores(long from, long to) {
            int a = atOrBefore(from);
            int b = atOrBefore(to);
            return a < 0 || b < 0 || nanos[b] <= nanos[a] ? Double.NaN
                    : RunWindow.rate(cpu[b] - cpu[a], nanos[a], nanos[b]);
        }
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
            Series series = Series.of(points);
            Double idle = null;
            if (t.idleFrom != null && t.idleTo != null) {
                double c = series.cores(t.idleFrom.nanos(), t.idleTo.nanos());
                idle = Double.isNaN(c) ? null : ReportBuilder.round(c);
            }
            Double cores = null;
            Double perOp = null;
            int resets = 0;
            if (t.windowFrom != null && t.windowTo != null && t.windowTo.nanos() > t.windowFrom.nanos()) {
                int a = series.atOrBefore(t.windowFrom.nanos());
                int b = series.atOrBefore(t.windowTo.nanos());
                double cpu = series.cpu()[b] - series.cpu()[a];
                cores = ReportBuilder.round(RunWindow.rate(cpu, series.nanos()[a], series.nanos()[b]));
                perOp = d.windowOps() == 0 ? null : Math.round(cpu / d.windowOps() * 1e6) / 1e6;
                resets = series.resets()[b] - series.resets()[a];
            }
            long peak = points.stream().mapToLong(p -> p.s().rssBytes()).max().orElse(0);
            double[] perRow = new double[g.rows()];
            for (int i = 0; i < perRow.length; i++) {
                perRow[i] = series.cores(g.start(i), g.end(i));
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
