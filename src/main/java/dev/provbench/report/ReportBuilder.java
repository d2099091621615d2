package dev.provbench.report;

import org.HdrHistogram.Histogram;


/** Helpers every report section shares: rounding, latency summaries, the run's thresholds. */
public final class ReportBuilder {
    private ReportBuilder() {
    }

    /**
     * What a run must meet to exit 0. Always checked: some operation completed in the window, and no more than
     * {@code maxFailureRatio} of the window's operations (completed + failed) failed; the rest only when set.
     */
    public record Slo(Double minOpsPerSec, Long maxFailures, Double maxP99Ms, double maxFailureRatio,
                      boolean requireAlone) {
        public Slo(Double minOpsPerSec, Long maxFailures, Double maxP99Ms, double maxFailureRatio) {
            this(minOpsPerSec, maxFailures, maxP99Ms, maxFailureRatio, false);
        }
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
}
