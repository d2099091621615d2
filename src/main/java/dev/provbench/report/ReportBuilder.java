package dev.provbench.report;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;

/** Helpers every report section shares: rounding, latency summaries, thresholds. */
public final class ReportBuilder {
    private ReportBuilder() {
    }

    /** Thresholds a run must meet; null fields are not checked. */
    /**
     * What a run must meet to exit 0. Always checked: some operation completed in the window, and no more than
     * {@code maxFailureRatio} of the window's operations (completed + failed) failed; the rest only when set.
     */
    public record Slo(Double minOpsPerSec, Long maxFailures, Double maxP99Ms, double maxFailureRatio) {
    }

    /** A latency summary in milliseconds from a histogram in microseconds. */
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

    /**
     * The thresholds of {@code slo} against the window's figures ({@code --max-p99}: the larger of the create
     * and delete total p99); null when none is set.
     */
    public static List<RunReport.Threshold> thresholds(Slo slo, RunReport.Ops ops, RunReport.Latencies lat) {
        if (slo == null || ops == null) {
            return null;
        }
        List<RunReport.Threshold> out = new ArrayList<>();
        long completed = ops.creates() + ops.deletes();
        out.add(new RunReport.Threshold("min-ops-completed", 1, completed, completed >= 1));
        double ratio = completed + ops.failures() == 0 ? 0 : round((double) ops.failures()
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
        if (slo.maxP99Ms() != null) {
            double p99 = Math.max(lat.create().total().p99(), lat.delete().total().p99());
            out.add(new RunReport.Threshold("max-p99-ms", slo.maxP99Ms(), p99, p99 <= slo.maxP99Ms()));
        }
        return out;
    }
}
