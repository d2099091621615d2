package dev.provbench.stats;

import org.apache.commons.statistics.distribution.BinomialDistribution;
import org.apache.commons.statistics.distribution.NormalDistribution;

import java.util.Arrays;

/**
 * The confidence interval of a sample's median from its order statistics, defined as benchstat defines it
 * (golang.org/x/perf/benchmath's {@code AssumeNothing}, go-moremath's {@code QuantileCI}): the number of
 * samples below the population median is Binomial(n, ½); starting at its (lower) mode, whole intervals between
 * order statistics are added — the more probable side first, the left one on a tie — until their probability
 * reaches the confidence. Above 30 samples the binomial is replaced by its normal approximation with the
 * continuity correction, left-biased where that still reaches the confidence. The distributions are
 * commons-statistics'; only the accumulation is ours.
 *
 * <p>{@code loOrder}/{@code hiOrder} are 1-based order statistics; an order outside 1..n is an unbounded side
 * (too few samples for the confidence: the interval is infinite and says so).
 *
 * @param confidence the interval's actual confidence, at least the one asked for
 */
public record MedianCI(int n, int loOrder, int hiOrder, double confidence, boolean ambiguous) {
    /** Above this many samples the normal approximation is used, as benchstat does. */
    static final int EXACT_UP_TO = 30;

    public static MedianCI of(int n, double confidence) {
        return quantile(n, 0.5, confidence);
    }

    /** The interval of the {@code q} quantile; exposed for the tests that pin it to benchstat's. */
    static MedianCI quantile(int n, double q, double confidence) {
        return quantile(n, q, confidence, EXACT_UP_TO);
    }

    /** As {@link #quantile(int, double, double)}, with the normal approximation above {@code exactUpTo}. */
    static MedianCI quantile(int n, double q, double confidence, int exactUpTo) {
        if (confidence >= 1) {
            return new MedianCI(n, 0, n + 1, 1, false);
        }
        int l;
        int r;
        double accum;
        boolean ambiguous;
        if (n <= exactUpTo) {
            BinomialDistribution b = BinomialDistribution.of(n, q);
            int mode = q == 0 ? 0 : (int) Math.ceil((n + 1) * q) - 1;
            accum = b.probability(mode);
            l = mode;
            r = mode + 1;
            double lp = b.probability(l - 1);
            double rp = b.probability(r);
            ambiguous = rp == accum;
            while (accum < confidence && (lp > 0 || rp > 0)) {
                ambiguous = lp == rp;
                if (lp >= rp) {
                    accum += lp;
                    l--;
                    lp = b.probability(l - 1);
                } else {
                    accum += rp;
                    r++;
                    rp = b.probability(r);
                }
            }
        } else {
            double mu = n * q;
            NormalDistribution norm = NormalDistribution.of(mu, Math.sqrt(n * q * (1 - q)));
            double l1 = norm.inverseCumulativeProbability((1 - confidence) / 2);
            double r1 = 2 * mu - l1;
            l = (int) Math.floor(Math.floor(l1 - 0.5) + 0.5) + 1;
            r = (int) Math.floor(Math.ceil(r1 - 0.5) + 0.5) + 1;
            accum = band(norm, l, r);
            ambiguous = false;
            double biased = band(norm, l, r - 1);
            if (biased >= confidence && biased < accum) {
                accum = biased;
                ambiguous = true;
                r = r - 1;
            }
            if (l <= 0 && r >= n + 1) {
                accum = 1;
                ambiguous = false;
            }
        }
        return new MedianCI(n, Math.max(0, l), Math.min(n + 1, r), accum, ambiguous);
    }

    private static double band(NormalDistribution norm, int l, int r) {
        return norm.cumulativeProbability(r - 0.5) - norm.cumulativeProbability(l - 0.5);
    }

    /** Whether both ends are sample values (else the interval is unbounded on a side). */
    public boolean finite() {
        return loOrder >= 1 && hiOrder <= n;
    }

    /** {lo, hi} of {@code sample} (any order); ±infinity on an unbounded side. */
    public double[] bounds(double[] sample) {
        if (sample.length != n) {
            throw new IllegalArgumentException("the interval is for " + n + " samples, not " + sample.length);
        }
        double[] s = sample.clone();
        Arrays.sort(s);
        return new double[] {loOrder < 1 ? Double.NEGATIVE_INFINITY : s[loOrder - 1],
            hiOrder > n ? Double.POSITIVE_INFINITY : s[hiOrder - 1]};
    }

    /** The fewest samples whose median interval at {@code confidence} is finite (benchstat: 6 at 95 %). */
    public static int samplesForFiniteInterval(double confidence) {
        for (int n = 2; n <= 50; n++) {
            if (of(n, confidence).finite()) {
                return n;
            }
        }
        return 51;
    }
}
