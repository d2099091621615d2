package dev.provbench.measure;

import dev.provbench.load.LoadRun;
import dev.provbench.load.OpLog;
import dev.provbench.load.RunWindow;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.RunReport;
import dev.provbench.util.IntervalCounts;


/**
 * {@code ops}, {@code latency}, {@code window} (with the steady-state verdict) and the time series' op
 * columns, from the run's {@link OpLog}. Counts: ops completed in the window. Rates: over the window.
 */
public final class Operations implements Measurement {
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

    private RunReport.OpLatency latency(OpLog log, OpLog.Kind kind) {
        return new RunReport.OpLatency(ReportBuilder.latency(log.latency(kind, OpLog.Part.PIPELINE)),
                ReportBuilder.latency(log.latency(kind, OpLog.Part.QUEUE)),
                ReportBuilder.latency(log.latency(kind, OpLog.Part.TOTAL)));
    }

    @Override
    public void report(ReportDraft d) {
        OpLog log = run.log();
        RunWindow w = d.runWindow();
        OpLog.Counts c = log.counts();
        RunReport.Ops ops = new RunReport.Ops(c.creates(), c.deletes(), c.failures(), c.failuresByCause(),
                ReportBuilder.round(w.rate(c.creates() + c.deletes())), ReportBuilder.round(w.rate(c.deletes())),
                c.inFlightAtStart(), c.inFlightAtEnd(), c.completedInWarmup(), c.completedAfterWindow(),
                c.failuresOutsideWindow(), c.recovered(), c.deleteRetries(), c.reclaimed());
        int rows = d.grid().rows();
        long[] creates = column(log.series(OpLog.Kind.CREATE), rows);
        long[] deletes = column(log.series(OpLog.Kind.DELETE), rows);
        d.ops(ops, new RunReport.Latencies(latency(log, OpLog.Kind.CREATE), latency(log, OpLog.Kind.DELETE)),
                creates, deletes, column(log.failureSeries(), rows));
        SteadyState.Verdict v = SteadyState.judge(windowBins(log, w), OpLog.FINE_STEP_NANOS / 1e9);
        d.window(new RunReport.Window(w.start().toString(), w.end().toString(), ReportBuilder.round(w.warmupSeconds()),
                w.warmupCapped(), ReportBuilder.round(w.seconds()), v.verdict(), v.reason(),
                SteadyState.BAND_PERCENT_PER_MINUTE, v.trendPercentPerMinute(), v.trendCi95(), v.cv(), v.lag1(),
                v.bins(), OpLog.FINE_STEP_NANOS / 1e9, v.wouldTellSeconds()));
        if (w.warmupCapped()) {
            d.warn("warm-up reached --warmup-max before every worker ended a cycle; the window opened anyway");
        }
        if (SteadyState.NOT_STEADY.equals(v.verdict())) {
            d.warn("the window is not a steady state — " + v.reason());
        } else if (!v.steady()) {
            d.warn("the window cannot tell whether it is a steady state — " + v.reason());
        }
    }
}
