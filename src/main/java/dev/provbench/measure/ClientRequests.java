package dev.provbench.measure;

import dev.provbench.kube.RequestStats;
import dev.provbench.load.RunWindow;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.RunReport;
import dev.provbench.util.IntervalCounts;
import org.HdrHistogram.Histogram;

/**
 * {@code requests} and {@code throttling}: the tool's own client. The window is one of the client's epochs
 * (begun at the window's start, ended at its end): the attempts sent in the window, with their outcomes read
 * at {@link #finish} — after the drain — so {@code byCode} holds the answers that came after the window too
 * and sums to {@code total}; {@code requests.totalIncludingCleanup} runs from the client's creation to the end
 * of the cleanup. The time series' {@code throttled} column counts throttled requests
 * per interval in every phase.
 */
public final class ClientRequests implements Measurement {
    private final RequestStats stats;
    private IntervalCounts throttledSeries;
    private int windowEpoch = -1;
    private RequestStats.Snapshot inWindow;
    private Histogram waits;
    private long totalAtFinish;

    public ClientRequests(RequestStats stats) {
        this.stats = stats;
    }

    @Override
    public void runStart(RunWindow w, long stepNanos, int intervals) {
        throttledSeries = new IntervalCounts(w.runStartNanos(), stepNanos, intervals);
        stats.trackThrottled(throttledSeries);
    }

    @Override
    public void windowStart(RunWindow w) {
        windowEpoch = stats.beginEpoch();
        stats.takeWaits();
    }

    @Override
    public void windowEnd(RunWindow w) {
        stats.beginEpoch();
        waits = stats.takeWaits();
    }

    @Override
    public void finish(RunWindow w) {
        inWindow = stats.epoch(windowEpoch);
        totalAtFinish = stats.total();
        stats.trackThrottled(null);
    }

    @Override
    public void report(ReportDraft d) {
        RequestStats.Snapshot s = inWindow;
        boolean any = waits.getTotalCount() > 0;
        RunReport.Throttling t = new RunReport.Throttling(s.throttled(), s.over50ms(), s.over1s(),
                ReportBuilder.round(s.waitSeconds()), any ? ReportBuilder.round(waits.getValueAtPercentile(50) / 1e3) : 0,
                any ? ReportBuilder.round(waits.getValueAtPercentile(99) / 1e3) : 0,
                any ? ReportBuilder.round(waits.getMaxValue() / 1e3) : 0, s.deferred());
        long[] series = new long[d.grid().rows()];
        for (int i = 0; i < series.length; i++) {
            series[i] = throttledSeries.get(i);
        }
        d.requests(requests(s, d, totalAtFinish), t, series);
    }

    /** A client's requests in the window as a report section, per op over the window's ops. */
    static RunReport.Requests requests(RequestStats.Snapshot s, ReportDraft d, Long totalIncludingCleanup) {
        return new RunReport.Requests(s.total(), s.byVerb(), s.byVerbResource(), s.byCode(), d.perOp(s.total()),
                totalIncludingCleanup);
    }
}
