package dev.provbench.measure;

import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.stat.descriptive.DescriptiveStatistics;
import org.apache.commons.math3.stat.regression.SimpleRegression;

import java.util.List;
import java.util.Locale;

/**
 * Is the window a steady state? Over the ops completed per {@link #BIN_SECONDS} bin inside the window: the
 * least-squares slope (commons-math3 {@link SimpleRegression}) as % of the mean per minute, with a 95 %
 * confidence interval from Student's t whose standard error and degrees of freedom are corrected for lag-1
 * autocorrelation of the residuals (a closed loop's completions come in waves, so neighbouring bins are not
 * independent): with r₁ &gt; 0 the effective number of bins is n·(1−r₁)/(1+r₁) (Santer et al. 2000, J. Geophys.
 * Res. 105, "Statistical significance of trends and trend differences in layer-average atmospheric temperature
 * time series"). Three outcomes:
 * <ul>
 * <li>{@link #STEADY}: the whole interval lies within ±{@link #BAND_PERCENT_PER_MINUTE} %/min;</li>
 * <li>{@link #NOT_STEADY}: the interval excludes 0 <em>and</em> the fitted change over the window exceeds
 * {@link #MAX_CHANGE} of the mean (a drift both real and large), or no op completed;</li>
 * <li>{@link #UNDETERMINED}: fewer than {@link #MIN_BINS} bins, too few effective bins, or an interval too wide
 * to tell; then {@code wouldTellSeconds} is the window that would narrow it to the band at this noise (the
 * slope's standard error falls as the window's length to the power 3/2).</li>
 * </ul>
 */
public final class SteadyState {
    public static final String STEADY = "steady";
    public static final String NOT_STEADY = "not steady";
    public static final String UNDETERMINED = "undetermined";
    public static final double BIN_SECONDS = 1.0;
    public static final int MIN_BINS = 10;
    public static final double BAND_PERCENT_PER_MINUTE = 10.0;
    public static final double MAX_CHANGE = 0.10;

    /**
     * @param verdict               {@link #STEADY}, {@link #NOT_STEADY} or {@link #UNDETERMINED}
     * @param trendPercentPerMinute slope as % of the mean per minute (null when not computable)
     * @param trendCi95             its 95 % interval, same unit, autocorrelation-corrected
     * @param cv                    coefficient of variation of the bins' ops/s
     * @param lag1                  lag-1 autocorrelation of the fit's residuals
     * @param bins                  whole bins inside the window that the verdict used
     * @param wouldTellSeconds      undetermined only: the window length that would tell, else null
     * @param reason                one line saying why
     */
    public record Verdict(String verdict, Double trendPercentPerMinute, List<Double> trendCi95, Double cv,
                          Double lag1, int bins, Double wouldTellSeconds, String reason) {
        public boolean steady() {
            return STEADY.equals(verdict);
        }
    }

    private SteadyState() {
    }

    /**
     * @param counts     ops completed in consecutive whole bins of the window
     * @param binSeconds their length
     */
    public static Verdict judge(long[] counts, double binSeconds) {
        int n = counts.length;
        if (n < MIN_BINS) {
            return new Verdict(UNDETERMINED, null, null, null, null, n, MIN_BINS * binSeconds,
                    String.format(Locale.ROOT, "undetermined: %d whole %s s bin(s) in the window, %d needed "
                            + "(lengthen --duration)", n, num(binSeconds), MIN_BINS));
        }
        double[] rates = new double[n];
        for (int i = 0; i < n; i++) {
            rates[i] = counts[i] / binSeconds;
        }
        DescriptiveStatistics d = new DescriptiveStatistics(rates);
        double mean = d.getMean();
        if (mean <= 0) {
            return new Verdict(NOT_STEADY, null, null, null, null, n, null,
                    "not steady: no operation completed in the window");
        }
        SimpleRegression fit = new SimpleRegression();
        for (int i = 0; i < n; i++) {
            fit.addData((i + 0.5) * binSeconds, rates[i]);
        }
        double slope = fit.getSlope(); // ops/s per second
        double r1 = lag1(fit, rates, binSeconds);
        double nEff = r1 > 0 ? n * (1 - r1) / (1 + r1) : n;
        double perMinute = 60 * 100 / mean;
        double trend = slope * perMinute;
        double cv = d.getStandardDeviation() / mean;
        double seconds = n * binSeconds;
        double change = slope * seconds / mean;
        if (nEff < MIN_BINS / 2.0) {
            return new Verdict(UNDETERMINED, round(trend), null, round(cv), round(r1), n, null,
                    String.format(Locale.ROOT, "undetermined: the %d bins move together (lag-1 autocorrelation "
                            + "%.2f, %.1f effective bins): the window holds too few independent samples — lengthen "
                            + "--duration", n, r1, nEff));
        }
        // Santer et al.: the residual variance over n_eff − 2 degrees of freedom instead of n − 2
        double se = fit.getSlopeStdErr() * Math.sqrt((n - 2) / (nEff - 2));
        double half = new TDistribution(nEff - 2).inverseCumulativeProbability(0.975) * se;
        double lo = (slope - half) * perMinute;
        double hi = (slope + half) * perMinute;
        List<Double> ci = List.of(round(lo), round(hi));
        boolean significant = lo > 0 || hi < 0;
        String verdict;
        Double wouldTell = null;
        if (lo >= -BAND_PERCENT_PER_MINUTE && hi <= BAND_PERCENT_PER_MINUTE) {
            verdict = STEADY;
        } else if (significant && Math.abs(change) > MAX_CHANGE) {
            verdict = NOT_STEADY;
        } else {
            verdict = UNDETERMINED;
            double halfPct = half * perMinute;
            double room = BAND_PERCENT_PER_MINUTE - Math.min(Math.abs(trend), BAND_PERCENT_PER_MINUTE / 2);
            wouldTell = Math.ceil(seconds * Math.pow(halfPct / room, 2.0 / 3.0) / 10) * 10;
        }
        String reason = String.format(Locale.ROOT, "%s: ops/s trend %+.1f %%/min (95 %% CI %+.1f … %+.1f; "
                        + "band ±%s), %+.0f %% over the window, CV %.2f, %d bins of %s s, lag-1 autocorrelation %.2f%s",
                verdict, trend, lo, hi, num(BAND_PERCENT_PER_MINUTE), change * 100, cv, n, num(binSeconds), r1,
                wouldTell == null ? "" : String.format(Locale.ROOT, "; a window of about %s s would tell at this "
                        + "noise", num(wouldTell)));
        return new Verdict(verdict, round(trend), ci, round(cv), round(r1), n, wouldTell, reason);
    }

    /** Lag-1 autocorrelation of the fit's residuals (0 when they have no variance). */
    private static double lag1(SimpleRegression fit, double[] rates, double binSeconds) {
        int n = rates.length;
        double[] e = new double[n];
        for (int i = 0; i < n; i++) {
            e[i] = rates[i] - fit.predict((i + 0.5) * binSeconds);
        }
        double num = 0;
        double den = 0;
        for (int i = 0; i < n; i++) {
            den += e[i] * e[i];
            if (i + 1 < n) {
                num += e[i] * e[i + 1];
            }
        }
        return den > 0 ? Math.max(-1, Math.min(0.99, num / den)) : 0;
    }

    private static String num(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
