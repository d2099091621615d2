package dev.provbench.stats;

import java.util.Arrays;

/**
 * One metric over repeated runs: the samples, their median and its confidence interval ({@link MedianCI}), min
 * and max. An interval that is infinite for lack of samples carries a note saying how many are needed.
 */
public record Summary(double[] samples, double median, double ciLow, double ciHigh, double confidence, double min,
                      double max, String note) {

    public static Summary of(double[] samples, double confidence) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        double[] s = samples.clone();
        Arrays.sort(s);
        int n = s.length;
        double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        MedianCI ci = MedianCI.of(n, confidence);
        double[] b = ci.bounds(s);
        String note = ci.finite() ? null : "need >= " + MedianCI.samplesForFiniteInterval(confidence)
                + " samples for a confidence interval at level " + confidence;
        return new Summary(s, median, b[0], b[1], ci.confidence(), s[0], s[n - 1], note);
    }

    public int n() {
        return samples.length;
    }

    /**
     * How sure the range [min, max] holds the population median: 1 − 2·½ⁿ (each sample falls on either side of
     * it with probability ½; the range misses it only when all fall on one side). 0.9375 for 5 samples.
     */
    public double minMaxConfidence() {
        return 1 - 2 * Math.pow(0.5, samples.length);
    }
}
