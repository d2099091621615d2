package dev.provbench.measure;

import dev.provbench.load.BulkWorkload;
import dev.provbench.load.LoadRun;
import dev.provbench.load.RunWindow;
import dev.provbench.report.HtmlFormat;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Metric;
import dev.provbench.report.SectionKind.Row;
import dev.provbench.report.SectionKind.Unit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code bulk}: a {@code --mode bulk} run's wave ({@link BulkWorkload}) — how many of its N claims were created, got
 * Bound, were deleted and had their PVs gone; the time from the first create's start to the last Bound and from the
 * first delete's start to the last PV gone; the throughput over those spans and the steady slope between 10 % and
 * 90 % of each curve; and the curve itself (created / Bound / Released / gone, once a second, the run's own claims
 * as its list-watches saw them). Scope: the run's own claims and PVs.
 */
public final class BulkWave implements Measurement {

    /**
     * The counts over time from the run's start, one point a second (at most {@link #MAX_POINTS}: a longer run's
     * curve keeps every k-th point).
     */
    public record Curve(double stepSeconds, double[] t, long[] created, long[] bound, long[] released, long[] gone) {
    }

    /**
     * @param count                  claims of the wave ({@code --count})
     * @param created                POSTs the API server took (claims that exist)
     * @param bound                  claims seen Bound
     * @param deleted                DELETEs the API server took
     * @param gone                   PVs of the wave seen gone
     * @param toAllBoundSeconds      first create started → last claim Bound; null unless every one of {@code count}
     *                               got Bound
     * @param toAllGoneSeconds       first delete started → last PV gone; null unless every one of {@code count}
     *                               went
     * @param createsPerSecond       {@code bound} / (first create started → last Bound)
     * @param deletesPerSecond       {@code gone} / (first delete started → last PV gone)
     * @param createsSteadyPerSecond the Bound curve's slope between its 10 % and its 90 % of {@code count}: the
     *                               pipeline's rate without the start and the tail; null below 10 claims or when the
     *                               curve did not reach 90 %
     * @param deletesSteadyPerSecond the same for the gone curve
     * @param curve                  the counts over time
     * @param summary                one line for people
     */
    public record Bulk(long count, long created, long bound, long deleted, long gone, Double toAllBoundSeconds,
                       Double toAllGoneSeconds, Double createsPerSecond, Double deletesPerSecond,
                       Double createsSteadyPerSecond, Double deletesSteadyPerSecond, Curve curve, String summary) {

        public boolean complete() {
            return bound == count && gone == count;
        }
    }

    static final int MAX_POINTS = 2000;

    public static final SectionKind<Bulk> BULK = SectionKind.of("bulk", Bulk.class)
            .scope("the run's own claims and PVs")
            .rows(b -> List.of(
                    new Row("bulk", "claims", b.count() + ": " + b.created() + " created, " + b.bound() + " Bound, "
                            + b.deleted() + " deleted, " + b.gone() + " PVs gone"),
                    new Row("bulk", "to all Bound", span(b.toAllBoundSeconds(), b.createsPerSecond(),
                            b.createsSteadyPerSecond(), "creates")),
                    new Row("bulk", "to all gone", span(b.toAllGoneSeconds(), b.deletesPerSecond(),
                            b.deletesSteadyPerSecond(), "deletes"))))
            .metrics(List.of(Unit.higher("creates/s"), Unit.higher("deletes/s"), Unit.lower("to-all-bound-s"),
                    Unit.lower("to-all-gone-s")), b -> {
                List<Metric> out = new ArrayList<>();
                if (b.createsPerSecond() != null) {
                    out.add(Metric.of("creates/s", b.createsPerSecond()));
                }
                if (b.deletesPerSecond() != null) {
                    out.add(Metric.of("deletes/s", b.deletesPerSecond()));
                }
                if (b.toAllBoundSeconds() != null) {
                    out.add(Metric.of("to-all-bound-s", b.toAllBoundSeconds()));
                }
                if (b.toAllGoneSeconds() != null) {
                    out.add(Metric.of("to-all-gone-s", b.toAllGoneSeconds()));
                }
                return out;
            })
            .headline(b -> b.complete() ? String.format(Locale.ROOT, "BULK %d: all Bound in %.1f s, all gone in %.1f s",
                    b.count(), b.toAllBoundSeconds(), b.toAllGoneSeconds()) : "BULK INCOMPLETE: " + b.summary())
            .html((b, r) -> b.curve() == null || b.curve().t().length < 2 ? "" : HtmlFormat.chart("bulk-chart",
                    "the wave's claims: created, Bound, PVs Released, PVs gone (count, by seconds since the run's start)",
                    b.curve().t(), new double[][]{asDouble(b.curve().created()), asDouble(b.curve().bound()),
                            asDouble(b.curve().released()), asDouble(b.curve().gone())},
                    new String[]{"#888", "#2a6", "#c80", "#36c"}));

    private final LoadRun run;
    private final List<long[]> points = new ArrayList<>(); // guarded by this: t, created, bound, released, gone
    private long runStart;

    public BulkWave(LoadRun run) {
        this.run = run;
    }

    private BulkWorkload.Tally tally() {
        return ((BulkWorkload) run.workload()).tally();
    }

    @Override
    public void runStart(RunWindow w, long stepNanos, int intervals) {
        runStart = w.runStartNanos();
    }

    @Override
    public synchronized void sample(long nanos) {
        if (runStart == 0) {
            return;
        }
        BulkWorkload.Tally t = tally();
        long[] p = {nanos - runStart, t.sent(), t.bound(), run.stamps().releasedSeen(), t.gone()};
        if (points.size() >= 10 * MAX_POINTS) { // a day-long run: keep every other point
            for (int i = points.size() - 2; i > 0; i -= 2) {
                points.remove(i);
            }
        }
        points.add(p);
    }

    @Override
    public void finish(RunWindow w) {
        sample(System.nanoTime());
    }

    /** The wave so far, for the live view: one line. */
    public String live() {
        BulkWorkload.Tally t = tally();
        return String.format(Locale.ROOT, "%s: %d of %d created, %d Bound, %d deleted, %d gone", t.stage().json(),
                t.sent(), t.count(), t.bound(), t.deletesSent(), t.gone());
    }

    @Override
    public void report(ReportDraft d) {
        BulkWorkload.Tally t = tally();
        long n = t.count();
        long[] bound = t.boundTimes();
        long[] gone = t.goneTimes();
        Double toBound = bound.length == n && n > 0 ? seconds(bound[bound.length - 1] - t.firstCreateNanos()) : null;
        Double toGone = gone.length == n && n > 0 ? seconds(gone[gone.length - 1] - t.firstDeleteNanos()) : null;
        Double createRate = bound.length == 0 ? null : RunWindow.rate(bound.length, t.firstCreateNanos(),
                bound[bound.length - 1]);
        Double deleteRate = gone.length == 0 ? null : RunWindow.rate(gone.length, t.firstDeleteNanos(),
                gone[gone.length - 1]);
        String summary = String.format(Locale.ROOT, "%d of %d claims created, %d Bound, %d deleted, %d PVs gone",
                t.sent(), n, t.bound(), t.deletesSent(), t.gone());
        Bulk b = new Bulk(n, t.sent(), t.bound(), t.deletesSent(), t.gone(), toBound, toGone, round(createRate),
                round(deleteRate), round(steady(bound, n)), round(steady(gone, n)), curve(), summary);
        d.put(BULK, b);
        if (!b.complete()) {
            d.warn("the bulk wave is incomplete: " + summary + " (the failures by cause are under ops)");
        }
    }

    /**
     * The slope between the {@code 10 %} and the {@code 90 %} event of {@code n} (events/s), from the events' own
     * times; null below 10 events or when 90 % of {@code n} were not reached.
     */
    static Double steady(long[] times, long n) {
        if (n < 10) {
            return null;
        }
        int lo = (int) Math.ceil(0.1 * n) - 1;
        int hi = (int) Math.ceil(0.9 * n) - 1;
        if (times.length <= hi || hi <= lo) {
            return null;
        }
        long[] sorted = times.clone();
        Arrays.sort(sorted); // completions of several threads: nearly sorted, not strictly
        return RunWindow.rate(hi - lo, sorted[lo], sorted[hi]);
    }

    private synchronized Curve curve() {
        if (points.isEmpty()) {
            return null;
        }
        int k = Math.max(1, (points.size() + MAX_POINTS - 1) / MAX_POINTS);
        List<long[]> kept = new ArrayList<>();
        for (int i = 0; i < points.size(); i += k) {
            kept.add(points.get(i));
        }
        if (kept.get(kept.size() - 1) != points.get(points.size() - 1)) {
            kept.add(points.get(points.size() - 1));
        }
        int m = kept.size();
        double[] ts = new double[m];
        long[][] cols = new long[4][m];
        for (int i = 0; i < m; i++) {
            long[] p = kept.get(i);
            ts[i] = ReportBuilder.round(p[0] / 1e9);
            for (int c = 0; c < 4; c++) {
                cols[c][i] = p[c + 1];
            }
        }
        return new Curve(k, ts, cols[0], cols[1], cols[2], cols[3]);
    }

    private static String span(Double seconds, Double rate, Double steady, String what) {
        if (seconds == null) {
            return rate == null ? "not reached" : String.format(Locale.ROOT, "not reached (%.2f %s/s while it ran)",
                    rate, what);
        }
        return String.format(Locale.ROOT, "%.1f s: %.2f %s/s%s", seconds, rate, what, steady == null ? ""
                : String.format(Locale.ROOT, " (steady %.2f/s between 10 %% and 90 %%)", steady));
    }

    private static double[] asDouble(long[] v) {
        return Arrays.stream(v).asDoubleStream().toArray();
    }

    private static Double seconds(long nanos) {
        return ReportBuilder.round(nanos / 1e9);
    }

    private static Double round(Double v) {
        return v == null ? null : ReportBuilder.round(v);
    }
}
