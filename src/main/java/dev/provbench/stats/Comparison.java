package dev.provbench.stats;

import org.apache.commons.statistics.inference.AlternativeHypothesis;
import org.apache.commons.statistics.inference.MannWhitneyUTest;
import org.apache.commons.statistics.inference.PValueMethod;

/**
 * Whether two sets of samples differ, as benchstat decides it: a two-sided Mann-Whitney U test
 * (commons-statistics-inference; exact p-value for small samples without ties, else the normal
 * approximation with tie and continuity correction), significant when p ≤ alpha. With samples so few that
 * even two sets that do not overlap at all cannot reach alpha (3 against 3: p ≥ 0.1), the comparison says
 * how many are needed instead of letting "not significant" pass for "no difference".
 *
 * @param deltaPercent (median new − median old) / median old × 100; NaN when the old median is 0
 */
public record Comparison(Summary old, Summary now, double p, double alpha, boolean significant,
                         double deltaPercent, String note) {
    private static final MannWhitneyUTest TEST = MannWhitneyUTest.withDefaults()
            .with(AlternativeHypothesis.TWO_SIDED).with(PValueMethod.AUTO);

    public static Comparison of(Summary old, Summary now, double alpha) {
        double p = TEST.test(old.samples(), now.samples()).getPValue();
        if (Double.isNaN(p)) {
            p = 1; // every value tied (e.g. 0 failures on both sides): no evidence of a difference, as benchstat says
        }
        double delta = old.median() == 0 ? Double.NaN : (now.median() - old.median()) / old.median() * 100;
        String note = null;
        if (p > alpha) {
            int need = samplesToDetect(alpha);
            if (old.n() < need && now.n() < need) {
                note = "need >= " + need + " samples on each side to detect a difference at alpha " + alpha;
            }
        }
        return new Comparison(old, now, p, alpha, p <= alpha, delta, note);
    }

    /**
     * The smallest n for which two samples of n that do not overlap reach p ≤ alpha (two-sided, exact): the
     * p-value of the most extreme arrangement, 2 / C(2n, n).
     */
    public static int samplesToDetect(double alpha) {
        for (int n = 1; n <= 20; n++) {
            double[] x = new double[n];
            double[] y = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = i;
                y[i] = n + i;
            }
            if (TEST.test(x, y).getPValue() <= alpha) {
                return n;
            }
        }
        return 21;
    }
}
