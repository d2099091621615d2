package dev.provbench.report;

import dev.provbench.kube.RequestStats;
import dev.provbench.load.LoadRun;
import dev.provbench.load.OpLog;
import dev.provbench.load.RunConfig;
import dev.provbench.util.Durations;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Turns a run's outcome into a {@link RunReport}. */
public final class ReportBuilder {
    private ReportBuilder() {
    }

    /** Thresholds a run must meet; null fields are not checked. */
    public record Slo(Double minOpsPerSec, Long maxFailures, Double maxP99Ms) {
    }

    public static RunReport.Latency latency(Histogram h) {
        if (h == null || h.getTotalCount() == 0) {
            return new RunReport.Latency(0, 0, 0, 0, 0, 0, 0);
        }
        return new RunReport.Latency(h.getTotalCount(), round(h.getMean() / 1e3),
                round(h.getValueAtPercentile(50) / 1e3), round(h.getValueAtPercentile(90) / 1e3),
                round(h.getValueAtPercentile(99) / 1e3), round(h.getValueAtPercentile(99.9) / 1e3),
                round(h.getMaxValue() / 1e3));
    }

    /** Three decimals, as every rate and ratio in the report. */
    public static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    public static RunReport.Requests requests(RequestStats.Snapshot s, long ops) {
        return new RunReport.Requests(s.total(), s.byVerb(), s.byVerbResource(), s.byCode(),
                ops == 0 ? null : round(s.total() / (double) ops));
    }

    public static RunReport build(String version, String mode, RunConfig cfg, RunReport.Config config,
            LoadRun.Outcome o, RunReport.Provisioner provisioner, Map<String, RunReport.Requests> components,
            Slo slo, String driverSource) {
        OpLog log = o.log();
        long ops = log.creates() + log.deletes();
        double secs = Math.max(o.seconds(), 1e-9);
        RunReport.Ops opsRow = new RunReport.Ops(log.creates(), log.deletes(), log.failures(),
                log.failuresByCause(), round(ops / secs), round(Math.min(log.creates(), log.deletes()) / secs),
                o.inFlightAtEnd(), log.afterWindow());
        RequestStats.Snapshot s = o.requests();
        RunReport.Throttling throttling = new RunReport.Throttling(s.throttled(), s.over50ms(), s.over1s(),
                round(s.waitSeconds()), round(s.waitP50Ms()), round(s.waitP99Ms()), round(s.waitMaxMs()),
                s.deferred());
        RunReport.Latencies lat = new RunReport.Latencies(latency(log.createHistogram()),
                latency(log.deleteHistogram()));
        RunReport.Driver driver = o.driver() == null ? null
                : new RunReport.Driver(o.driver().volumesCreated(), o.driver().volumesDeleted(),
                o.driver().createVolumeOk(), o.driver().deleteVolumeOk(), driverSource);
        List<RunReport.Interval> series = new ArrayList<>();
        long[] c = log.series(OpLog.Kind.CREATE);
        long[] d = log.series(OpLog.Kind.DELETE);
        long[] f = log.failureSeries();
        double step = cfg.interval().toNanos() / 1e9;
        int n = (int) Math.ceil(secs / step - 1e-9);
        long prevThrottled = 0;
        long lastThrottled = 0;
        for (int i = 0; i < Math.min(n, c.length); i++) {
            double t = Math.min((i + 1) * step, secs);
            double len = t - i * step;
            long cumulative = Math.max(o.throttledSeries()[i], lastThrottled);
            lastThrottled = cumulative;
            series.add(new RunReport.Interval(round(t), c[i], d[i], f[i], round((c[i] + d[i]) / Math.max(len, 1e-9)),
                    cumulative - prevThrottled));
            prevThrottled = cumulative;
        }
        List<RunReport.Threshold> thresholds = null;
        Boolean passed = null;
        if (slo != null && (slo.minOpsPerSec() != null || slo.maxFailures() != null || slo.maxP99Ms() != null)) {
            thresholds = new ArrayList<>();
            if (slo.minOpsPerSec() != null) {
                thresholds.add(new RunReport.Threshold("min-ops-per-sec", slo.minOpsPerSec(), opsRow.opsPerSecond(),
                        opsRow.opsPerSecond() >= slo.minOpsPerSec()));
            }
            if (slo.maxFailures() != null) {
                thresholds.add(new RunReport.Threshold("max-failures", slo.maxFailures(), opsRow.failures(),
                        opsRow.failures() <= slo.maxFailures()));
            }
            if (slo.maxP99Ms() != null) {
                double p99 = Math.max(lat.create().p99(), lat.delete().p99());
                thresholds.add(new RunReport.Threshold("max-p99-ms", slo.maxP99Ms(), p99, p99 <= slo.maxP99Ms()));
            }
            passed = thresholds.stream().allMatch(RunReport.Threshold::passed);
        }
        return new RunReport(RunReport.SCHEMA_VERSION, new RunReport.Tool("provbench", version), mode, o.runId(),
                passed, config, new RunReport.Window(o.start().toString(), o.end().toString(), round(secs)), opsRow,
                lat, requests(s, ops + log.afterWindow()), throttling, driver, provisioner, components, o.cleanup(), thresholds, series);
    }

    public static RunReport.Config config(RunConfig c, Double provisionerQps, Integer provisionerBurst,
            String provisionerReads) {
        return new RunReport.Config(c.threads(), Durations.format(c.duration()), c.cycles() > 0 ? c.cycles() : null,
                Durations.format(c.opTimeout()), c.namespace(), c.storageClass(), c.size(), c.accessMode(),
                c.waitMode().name().toLowerCase(java.util.Locale.ROOT), c.qps(), c.burst(), provisionerQps,
                provisionerBurst, provisionerReads);
    }
}
