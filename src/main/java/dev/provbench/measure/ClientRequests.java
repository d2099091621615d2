package dev.provbench.measure;

import dev.provbench.kube.RequestStats;
import dev.provbench.load.RunWindow;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.Rows;
import dev.provbench.report.RunReport;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Metric;
import dev.provbench.report.SectionKind.Row;
import dev.provbench.report.SectionKind.Unit;
import dev.provbench.util.IntervalCounts;
import com.fasterxml.jackson.core.type.TypeReference;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code requests} and {@code throttling}: the tool's own client. The window is one of the client's epochs
 * (begun at the window's start, ended at its end): the attempts sent in the window, with their outcomes read
 * at {@link #finish} — after the drain — so {@code byCode} holds the answers that came after the window too
 * and sums to {@code total}; {@code requests.totalIncludingCleanup} runs from the client's creation to the end
 * of the cleanup. The time series' {@code throttled} column counts throttled requests
 * per interval in every phase.
 */
public final class ClientRequests implements Measurement {

    /** provbench's own client-side throttling in the window ({@code throttling}; exact, its own limiter). */
    public record Throttling(long throttled, long over50ms, long over1s, double waitSeconds, double waitP50Ms,
                             double waitP99Ms, double waitMaxMs, long deferred) {
    }

    public static final SectionKind<RunReport.Requests> REQUESTS = SectionKind.of("requests", RunReport.Requests.class)
            .rows(q -> List.of(
                    new Row("requests", "total", q.total() + (q.perOp() == null ? "" : " (" + Rows.num(q.perOp())
                            + " per op)") + (q.totalIncludingCleanup() == null ? "" : "; " + q.totalIncludingCleanup()
                            + " including warm-up, drain and cleanup")),
                    new Row("requests", "by verb", Rows.map(q.byVerb())),
                    new Row("requests", "by code", Rows.map(q.byCode()))))
            .metrics(List.of(Unit.lower("req/op")), q -> q.perOp() == null ? List.of()
                    : List.of(Metric.of("req/op", q.perOp())))
            .headline(q -> q.total() + " API requests");

    public static final SectionKind<Throttling> THROTTLING = SectionKind.of("throttling", Throttling.class)
            .rows(t -> List.of(
                    new Row("throttling", "tool (exact, its own limiter)", t.throttled() + " throttled requests (>50ms "
                            + t.over50ms() + ", >1s " + t.over1s() + ")"),
                    new Row("throttling", "wait", Rows.num(t.waitSeconds()) + " s total, p50 " + Rows.num(t.waitP50Ms())
                            + " ms, p99 " + Rows.num(t.waitP99Ms()) + " ms, max " + Rows.num(t.waitMaxMs()) + " ms")))
            .metrics(List.of(Unit.lower("throttled")), t -> List.of(Metric.count("throttled", t.throttled())))
            .headline(t -> t.throttled() + " throttled");

    /**
     * {@code components}: other clients' requests in the window, by component name (the stand-ins',
     * {@link StandInRequests}; the audit log's, {@link AuditLogRequests}).
     */
    public static final SectionKind<Map<String, RunReport.Requests>> COMPONENTS = SectionKind.of("components",
            new TypeReference<Map<String, RunReport.Requests>>() {
            }).scope(Scope.COMPONENTS).rows(m -> {
                List<Row> rows = new ArrayList<>();
                m.forEach((name, req) -> rows.add(new Row("components", name + " requests", req.total()
                        + (req.perOp() == null ? "" : " (" + Rows.num(req.perOp()) + " per op)") + ": "
                        + Rows.map(req.byVerbResource()))));
                return rows;
            });

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
        Throttling t = new Throttling(s.throttled(), s.over50ms(), s.over1s(),
                ReportBuilder.round(s.waitSeconds()), any ? ReportBuilder.round(waits.getValueAtPercentile(50) / 1e3) : 0,
                any ? ReportBuilder.round(waits.getValueAtPercentile(99) / 1e3) : 0,
                any ? ReportBuilder.round(waits.getMaxValue() / 1e3) : 0, s.deferred());
        long[] series = new long[d.grid().rows()];
        for (int i = 0; i < series.length; i++) {
            series[i] = throttledSeries.get(i);
        }
        d.put(REQUESTS, requests(s, d, totalAtFinish));
        d.put(THROTTLING, t);
        d.column(ReportDraft.Column.THROTTLED, series);
    }

    /** A client's requests in the window as a report section, per op over the window's ops. */
    static RunReport.Requests requests(RequestStats.Snapshot s, ReportDraft d, Long totalIncludingCleanup) {
        return new RunReport.Requests(s.total(), s.byVerb(), s.byVerbResource(), s.byCode(), d.perOp(s.total()),
                totalIncludingCleanup);
    }
}
