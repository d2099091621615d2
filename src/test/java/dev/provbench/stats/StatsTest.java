package dev.provbench.stats;

import org.apache.commons.statistics.distribution.BinomialDistribution;
import org.apache.commons.statistics.distribution.NormalDistribution;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The median interval and the comparison, pinned to the values benchstat's own library is tested with
 * (go-moremath stats/quantileci_test.go) and to exact Mann-Whitney p-values (benchmath's uTestMinP table).
 */
class StatsTest {

    private static void check(MedianCI ci, int lo, int hi, double confidence, boolean ambiguous) {
        assertEquals(lo, ci.loOrder(), ci.toString());
        assertEquals(hi, ci.hiOrder(), ci.toString());
        assertEquals(confidence, ci.confidence(), 1e-9, ci.toString());
        assertEquals(ambiguous, ci.ambiguous(), ci.toString());
    }

    @Test
    void exactIntervalsAreBenchstats() {
        check(MedianCI.quantile(4, 0.5, 0.001), 2, 3, 0.375, false);
        check(MedianCI.quantile(4, 0.25, 0.001), 1, 2, 0.421875, false);
        check(MedianCI.quantile(4, 0, 0.001), 0, 1, 1, false);
        check(MedianCI.quantile(4, 1, 0.001), 4, 5, 1, false);
        check(MedianCI.quantile(4, 0.999, 0.001), 4, 5, BinomialDistribution.of(4, 0.999).probability(4), false);
        // "confidence exactly the PMF": the library's PMF, as go-moremath's test uses its own
        double pmf42 = BinomialDistribution.of(4, 0.5).probability(2);
        check(MedianCI.quantile(4, 0.5, pmf42), 2, 3, 0.375, false);
        check(MedianCI.quantile(4, 0.5, 0.3750001), 1, 3, 0.375 + 0.25, true);
        check(MedianCI.quantile(4, 0.5, 1), 0, 5, 1, false);
        check(MedianCI.quantile(4, 0.5, 0.99), 0, 5, 1, false);
        check(MedianCI.quantile(4, 0.5, 0.99 - 0.0625), 0, 4, 0.375 + 2 * 0.25 + 0.0625, true);
        check(MedianCI.quantile(5, 0.5, 0.001), 2, 3, 0.3125, true);
        check(MedianCI.quantile(5, 0.5, BinomialDistribution.of(5, 0.5).probability(2)), 2, 3, 0.3125, true);
        check(MedianCI.quantile(5, 0.5, 0.3125001), 2, 4, 0.3125 * 2, false);
        check(MedianCI.quantile(5, 0.5, 1), 0, 6, 1, false);
        check(MedianCI.quantile(5, 0.5, 0.99), 0, 6, 1, false);
        check(MedianCI.quantile(5, 0.5, 0.99 - 0.03125), 0, 5, 1 - 0.03125, true);
    }

    private static double[] normBuckets(int n) {
        NormalDistribution norm = NormalDistribution.of(n * 0.5, Math.sqrt(n * 0.25));
        double[] b = new double[n + 1];
        for (int i = 0; i <= n; i++) {
            b[i] = norm.cumulativeProbability(i + 0.5) - norm.cumulativeProbability(i - 0.5);
        }
        return b;
    }

    @Test
    void normalApproximationIntervalsAreBenchstats() {
        double[] n = normBuckets(4);
        check(MedianCI.quantile(4, 0.5, 0.001, 0), 2, 3, n[2], false);
        check(MedianCI.quantile(4, 0.5, n[2], 0), 2, 3, n[2], false);
        check(MedianCI.quantile(4, 0.5, n[2] + 0.00001, 0), 1, 3, n[1] + n[2], true);
        check(MedianCI.quantile(4, 0.5, 1, 0), 0, 5, 1, false);
        check(MedianCI.quantile(4, 0.5, 0.99, 0), 0, 5, 1, false);
        check(MedianCI.quantile(4, 0.5, 0.90, 0), 0, 4, n[0] + n[1] + n[2] + n[3], true);
        n = normBuckets(5);
        check(MedianCI.quantile(5, 0.5, 0.001, 0), 2, 3, n[2], true);
        check(MedianCI.quantile(5, 0.5, n[2], 0), 2, 3, n[2], true);
        check(MedianCI.quantile(5, 0.5, n[2] + 0.00001, 0), 2, 4, n[2] + n[3], false);
    }

    @Test
    void aMedianIntervalNeedsSixSamplesAtNinetyFivePercent() {
        assertEquals(6, MedianCI.samplesForFiniteInterval(0.95));
        Summary five = Summary.of(new double[] {5, 1, 4, 2, 3}, 0.95);
        assertEquals(3, five.median());
        assertTrue(Double.isInfinite(five.ciLow()), "unbounded below with 5 samples: " + five);
        assertEquals("need >= 6 samples for a confidence interval at level 0.95", five.note());
        Summary six = Summary.of(new double[] {6, 1, 5, 2, 4, 3}, 0.95);
        assertEquals(3.5, six.median());
        assertArrayEquals(new double[] {1, 6}, new double[] {six.ciLow(), six.ciHigh()});
        assertNull(six.note());
        Summary ten = Summary.of(new double[] {10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.95);
        assertTrue(ten.ciLow() > 1 && ten.ciHigh() < 10, ten.toString());
        assertTrue(ten.confidence() >= 0.95);
    }

    @Test
    void theExactUTestAndItsFloorForSmallSamples() {
        assertEquals(4, Comparison.samplesToDetect(0.05), "3 against 3 cannot go below p = 0.1");
        Summary a = Summary.of(new double[] {1, 2, 3}, 0.95);
        Summary b = Summary.of(new double[] {4, 5, 6}, 0.95);
        Comparison c = Comparison.of(a, b, 0.05);
        assertEquals(0.1, c.p(), 1e-12, "the most extreme arrangement of 3 and 3: 2 / C(6,3)");
        assertFalse(c.significant());
        assertNotNull(c.note());
        assertTrue(c.note().contains("need >= 4"), c.note());
        Comparison five = Comparison.of(Summary.of(new double[] {10, 11, 12, 13, 14}, 0.95),
                Summary.of(new double[] {20, 21, 22, 23, 24}, 0.95), 0.05);
        assertEquals(0.007936507936507936, five.p(), 1e-12, "2 / C(10,5), benchmath's uTestMinP[5]");
        assertTrue(five.significant());
        assertEquals(83.33333333333333, five.deltaPercent(), 1e-9);
        Comparison same = Comparison.of(Summary.of(new double[] {1, 2, 3, 4, 5}, 0.95),
                Summary.of(new double[] {1.5, 2.5, 3.5, 4.5, 5.5}, 0.95), 0.05);
        assertFalse(same.significant());
        assertNull(same.note(), "5 and 5 could have shown a difference: no excuse");
        Comparison ties = Comparison.of(Summary.of(new double[] {0, 0, 0, 0, 0, 0}, 0.95),
                Summary.of(new double[] {0, 0, 0, 0, 0, 0}, 0.95), 0.05);
        assertEquals(1, ties.p(), 0, "every value tied (0 failures on both sides): p = 1, as benchstat, not NaN");
        assertFalse(ties.significant());
    }
}
