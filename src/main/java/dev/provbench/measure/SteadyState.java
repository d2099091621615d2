package dev.provbench.measure;

import org.apache.commons.math3.stat.descriptive.DescriptiveStatistics;
import org.apache.commons.math3.stat.regression.SimpleRegression;

import java.util.List;
import java.util.Locale;

/**
 * Is the window a steady state? Over the ops/s of the whole intervals inside the window: the least-squares
 * slope with its 95 % confidence interval (Student's t, commons-math3 {@link SimpleRegression}) and the
 * coefficient of variation. Not steady when the slope's interval excludes 0 <em>and</em> the fitted change
 * over the window exceeds {@link #MAX_CHANGE} of the mean — a drift both real and large — or when fewer than
 * {@link #MIN_INTERVALS} intervals (or no ops) leave nothing to judge.
 */
public final class SteadyState {
    public static final int MIN_INTERVALS = 3;
    public static final double MAX_CHANGE = 0.10;

    /**
     * @param trendPercentPerMinute slope as % of the mean per minute (null when not computable)
     * @param trendCi95             its 95 % interval, same unit
     */
    public record Verdict(boolean steady, Double trendPercentPerMinute, List<Double> trendCi95, Double cv,
                          int intervals, String reason) {
    }

    private SteadyState() {
    }

    /**
     * @param rates           ops/s of consecutive whole intervals of the window
     * @param intervalSeconds their length
     */
    public static Verdict judge(double[] rates, double intervalSeconds) {
        int n = rates.length;
        if (n < MIN_INTERVALS) {
            return new Verdict(false, null, null, null, n, String.format(Locale.ROOT, "not judged: %d whole "
                    + "interval(s) in the window, %d needed (lengthen --duration or shorten --interval)", n,
                    MIN_INTERVALS));
        }
        DescriptiveStatistics d = new DescriptiveStatistics(rates);
        double mean = d.getMean();
        if (mean <= 0) {
            return new Verdict(false, null, null, null, n, "not steady: no operation completed in the window");
        }
        SimpleRegression fit = new SimpleRegression();
        for (int i = 0; i < n; i++) {
            fit.addData((i + 0.5) * intervalSeconds, rates[i]);
        }
        double slope = fit.getSlope(); // ops/s per second
        double half = fit.getSlopeConfidenceInterval(); // 95 %
        double perMinute = 60 * 100 / mean;
        double trend = slope * perMinute;
        List<Double> ci = List.of(round((slope - half) * perMinute), round((slope + half) * perMinute));
        double change = slope * n * intervalSeconds / mean;
        boolean significant = Double.isFinite(half) && (slope - half > 0 || slope + half < 0);
        boolean steady = !(significant && Math.abs(change) > MAX_CHANGE);
        double cv = d.getStandardDeviation() / mean;
        String reason = String.format(Locale.ROOT, "%s: ops/s trend %+.1f %%/min (95 %% CI %+.1f … %+.1f), "
                        + "%+.0f %% over the window, CV %.2f, %d intervals", steady ? "steady" : "not steady", trend,
                ci.get(0), ci.get(1), change * 100, cv, n);
        return new Verdict(steady, round(trend), ci, round(cv), n, reason);
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
