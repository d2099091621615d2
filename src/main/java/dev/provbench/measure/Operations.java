package dev.provbench.measure;

import dev.provbench.load.LoadRun;
import dev.provbench.load.OpLog;
import dev.provbench.load.RunWindow;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.Rows;
import dev.provbench.report.RunReport;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Metric;
import dev.provbench.report.SectionKind.Row;
import dev.provbench.report.SectionKind.Unit;
import dev.provbench.util.IntervalCounts;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;


/**
 * {@code ops}, {@code latency}, {@code window} (with the steady-state verdict) and the time series' op
 * columns, from the run's {@link OpLog}. Counts: ops completed in the window. Rates: over the window.
 */
public final class Operations implements Measurement {

    /**
     * The measurement window and the verdict on it.
     *
     * @param warmupSeconds         run start → window start
     * @param warmupCapped          the auto warm-up hit {@code --warmup-max} before every worker ended a cycle
     * @param seconds               window start → window end
     * @param verdict               {@code steady}, {@code not steady} or {@code undetermined} ({@link SteadyState})
     * @param reason                one line saying why, with the figures
     * @param bandPercentPerMinute  steady: the trend's 95 % interval lies within ± this
     * @param trendPercentPerMinute least-squares slope of per-bin ops/s, % of their mean per minute
     * @param trendCi95             that slope's 95 % confidence interval, same unit, corrected for lag-1
     *                              autocorrelation
     * @param cv                    coefficient of variation of the per-bin ops/s
     * @param lag1                  lag-1 autocorrelation of the fit's residuals
     * @param bins                  whole bins of {@code binSeconds} inside the window that the verdict used
     * @param wouldTellSeconds      undetermined: the window length that would tell at this noise, else null
     */
    public record Window(String start, String end, double warmupSeconds, boolean warmupCapped, double seconds,
                         String verdict, String reason, double bandPercentPerMinute, Double trendPercentPerMinute,
                         List<Double> trendCi95, Double cv, Double lag1, int bins, double binSeconds,
                         Double wouldTellSeconds) {
    }

    /**
     * @param opsPerSecond          (creates + deletes) / window seconds
     * @param cyclesPerSecond       cycles that ended with their delete in the window / window seconds
     * @param failuresOutsideWindow failed ops in warm-up or drain (in the time series, not in failures)
     * @param recovered             creates in {@code creates} whose answer was lost (no answer, a 5xx) but whose
     *                              claim existed: adopted and completed at Bound
     * @param createRetries         POSTs sent again in the window after a connection error, the claim not there
     * @param deleteRetries         DELETEs sent again in the window after a failed one
     * @param reclaimed             claims of failed creates the run deleted in the window (not left to the
     *                              cleanup)
     */
    public record Ops(long creates, long deletes, long failures, Map<String, Long> failuresByCause,
                      double opsPerSecond, double cyclesPerSecond, long inFlightAtStart, long inFlightAtEnd,
                      long completedInWarmup, long completedAfterWindow, long failuresOutsideWindow,
                      long recovered, long createRetries, long deleteRetries, long reclaimed) {
    }

    /**
     * @param queue    the op's request waiting for a token of provbench's own limiter
     * @param pipeline request sent → outcome seen (create: Bound; delete: PV gone)
     * @param total    both: the op's whole time as a worker sees it
     */
    public record OpLatency(RunReport.Latency pipeline, RunReport.Latency queue, RunReport.Latency total) {
    }

    /** {@code latency.create} and {@code latency.delete} ({@code latency.stages} is {@link OperationStages}'). */
    public record Latencies(OpLatency create, OpLatency delete) {
    }

    public static final SectionKind<Window> WINDOW = SectionKind.of("window", Window.class).rows(w -> List.of(
            new Row("window", "measured", w.start() + " → " + w.end() + " (" + Rows.num(w.seconds()) + " s, after "
                    + Rows.num(w.warmupSeconds()) + " s warm-up" + (w.warmupCapped() ? ", capped" : "") + ")"),
            new Row("window", "steady state", (w.verdict().equals(SteadyState.STEADY) ? ""
                    : w.verdict().equals(SteadyState.NOT_STEADY) ? "NO — " : "CANNOT TELL — ") + w.reason())))
            .headline(w -> "window " + Rows.num(w.seconds()) + " s, " + w.verdict());

    public static final SectionKind<Ops> OPS = SectionKind.of("ops", Ops.class).rows(Operations::rows)
            .metrics(List.of(Unit.higher("ops/s"), Unit.higher("cycles/s"), Unit.lower("failures")), o -> List.of(
                    Metric.of("ops/s", o.opsPerSecond()), Metric.of("cycles/s", o.cyclesPerSecond()),
                    Metric.count("failures", o.failures())))
            .iterations(o -> o.creates() + o.deletes())
            .headline(o -> String.format(Locale.ROOT, "%s ops/s (%d creates, %d deletes, %d failures)",
                    Rows.num(o.opsPerSecond()), o.creates(), o.deletes(), o.failures()));

    private static final String[] LATENCY_METRICS = {"pipeline-p50-ms", "pipeline-p99-ms", "total-p99-ms"};

    public static final SectionKind<Latencies> LATENCY = SectionKind.of("latency", Latencies.class).rows(l -> List.of(
                    new Row("latency", "create pipeline (sent → Bound)", Rows.lat(l.create().pipeline())),
                    new Row("latency", "delete pipeline (sent → PV gone)", Rows.lat(l.delete().pipeline())),
                    new Row("latency", "create queue (client limiter)", Rows.lat(l.create().queue())),
                    new Row("latency", "delete queue (client limiter)", Rows.lat(l.delete().queue())),
                    new Row("latency", "create total", Rows.lat(l.create().total())),
                    new Row("latency", "delete total", Rows.lat(l.delete().total()))))
            .metrics(latencyUnits(), l -> {
                List<Metric> out = new ArrayList<>();
                latencyMetrics(out, "create", l.create());
                latencyMetrics(out, "delete", l.delete());
                return out;
            });

    private static List<Unit> latencyUnits() {
        List<Unit> out = new ArrayList<>();
        for (String op : new String[]{"create", "delete"}) {
            for (String m : LATENCY_METRICS) {
                out.add(Unit.lower(op + "-" + m));
            }
        }
        return out;
    }

    /** Pipeline p50/p99 and total p99 of one kind of op, if any completed in the window. */
    private static void latencyMetrics(List<Metric> out, String op, OpLatency l) {
        if (l.total().count() > 0) {
            out.add(Metric.of(op + "-pipeline-p50-ms", l.pipeline().p50()));
            out.add(Metric.of(op + "-pipeline-p99-ms", l.pipeline().p99()));
            out.add(Metric.of(op + "-total-p99-ms", l.total().p99()));
        }
    }

    private static List<Row> rows(Ops o) {
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("ops", "creates / deletes", o.creates() + " / " + o.deletes()));
        rows.add(new Row("ops", "ops/s (creates+deletes)", Rows.num(o.opsPerSecond())));
        rows.add(new Row("ops", "cycles/s", Rows.num(o.cyclesPerSecond())));
        rows.add(new Row("ops", "failures", o.failures() + (o.failures() > 0 ? " (" + Rows.map(o.failuresByCause())
                + ")" : "") + (o.failuresOutsideWindow() > 0 ? "; " + o.failuresOutsideWindow()
                + " outside the window" : "")));
        if (o.recovered() + o.createRetries() + o.deleteRetries() + o.reclaimed() > 0) {
            rows.add(new Row("ops", "recovered creates / create retries / delete retries / reclaimed claims",
                    o.recovered() + " / " + o.createRetries() + " / " + o.deleteRetries() + " / " + o.reclaimed()));
        }
        rows.add(new Row("ops", "in flight at start / end", o.inFlightAtStart() + " / " + o.inFlightAtEnd()));
        rows.add(new Row("ops", "completed in warm-up / after", o.completedInWarmup() + " / "
                + o.completedAfterWindow()));
        return rows;
    }

    private final LoadRun run;

    public Operations(LoadRun run) {
        this.run = run;
    }

    private static long[] column(IntervalCounts c, int rows) {
        long[] out = new long[rows];
        for (int i = 0; i < rows; i++) {
            out[i] = c.get(i);
        }
        return out;
    }

    /** Ops completed in each whole verdict bin ({@link OpLog#fineSeries}, aligned to the run's start) of the window. */
    private static long[] windowBins(OpLog log, RunWindow w) {
        long step = OpLog.FINE_STEP_NANOS;
        long first = Math.floorDiv(w.windowStartNanos() - w.runStartNanos() + step - 1, step);
        long end = Math.floorDiv(w.windowEndNanos() - w.runStartNanos(), step);
        int n = (int) Math.max(0, end - first);
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = log.fineSeries().get((int) (first + i));
        }
        return out;
    }

    private static OpLatency latency(OpLog log, OpLog.Kind kind) {
        return new OpLatency(ReportBuilder.latency(log.latency(kind, OpLog.Part.PIPELINE)),
                ReportBuilder.latency(log.latency(kind, OpLog.Part.QUEUE)),
                ReportBuilder.latency(log.latency(kind, OpLog.Part.TOTAL)));
    }

    @Override
    public void report(ReportDraft d) {
        OpLog log = run.log();
        RunWindow w = d.runWindow();
        OpLog.Counts c = log.counts();
        Ops ops = new Ops(c.creates(), c.deletes(), c.failures(), c.failuresByCause(),
                ReportBuilder.round(w.rate(c.creates() + c.deletes())), ReportBuilder.round(w.rate(c.deletes())),
                c.inFlightAtStart(), c.inFlightAtEnd(), c.completedInWarmup(), c.completedAfterWindow(),
                c.failuresOutsideWindow(), c.recovered(), c.createRetries(), c.deleteRetries(), c.reclaimed());
        int rows = d.grid().rows();
        long[] creates = column(log.series(OpLog.Kind.CREATE), rows);
        long[] deletes = column(log.series(OpLog.Kind.DELETE), rows);
        // a wave (--mode bulk) is not meant to be steady: its rate rises and falls by design, so none is judged
        SteadyState.Verdict v = run.workload().timedWindow()
                ? SteadyState.judge(windowBins(log, w), OpLog.FINE_STEP_NANOS / 1e9)
                : new SteadyState.Verdict(SteadyState.UNDETERMINED, null, null, null, null, 0, null,
                "not judged: a " + run.workload().name() + " run's window is one wave, not a steady state");
        d.put(WINDOW, new Window(w.start().toString(), w.end().toString(), ReportBuilder.round(w.warmupSeconds()),
                w.warmupCapped(), ReportBuilder.round(w.seconds()), v.verdict(), v.reason(),
                SteadyState.BAND_PERCENT_PER_MINUTE, v.trendPercentPerMinute(), v.trendCi95(), v.cv(), v.lag1(),
                v.bins(), OpLog.FINE_STEP_NANOS / 1e9, v.wouldTellSeconds()));
        d.put(OPS, ops);
        d.put(LATENCY, new Latencies(latency(log, OpLog.Kind.CREATE), latency(log, OpLog.Kind.DELETE)));
        d.column(ReportDraft.Column.CREATES, creates);
        d.column(ReportDraft.Column.DELETES, deletes);
        d.column(ReportDraft.Column.FAILURES, column(log.failureSeries(), rows));
        if (w.warmupCapped()) {
            d.warn("warm-up reached --warmup-max before every worker ended a cycle; the window opened anyway");
        }
        if (SteadyState.NOT_STEADY.equals(v.verdict())) {
            d.warn("the window is not a steady state — " + v.reason());
        } else if (!v.steady() && run.workload().timedWindow()) {
            d.warn("the window cannot tell whether it is a steady state — " + v.reason());
        }
    }
}
