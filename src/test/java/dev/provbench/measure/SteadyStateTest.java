package dev.provbench.measure;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SteadyStateTest {

    /** Counts per 1 s bin of a process completing one op every {@code every} bins, exactly. */
    private static long[] paced(int bins, int perBin) {
        long[] c = new long[bins];
        java.util.Arrays.fill(c, perBin);
        return c;
    }

    @Test
    void aRegularRateOverAWindowThatCanTellIsSteady() {
        SplittableRandom r = new SplittableRandom(1);
        long[] c = new long[120];
        for (int i = 0; i < c.length; i++) {
            c[i] = 20 + r.nextInt(-2, 3); // 20 ± 2 ops/s, no trend
        }
        SteadyState.Verdict v = SteadyState.judge(c, 1);
        assertEquals(SteadyState.STEADY, v.verdict(), v.reason());
        assertEquals(120, v.bins());
        assertTrue(v.trendCi95().get(0) >= -10 && v.trendCi95().get(1) <= 10, "within the band: " + v.trendCi95());
        assertNull(v.wouldTellSeconds());
        assertTrue(v.reason().startsWith("steady: "), v.reason());
    }

    @Test
    void aRealAndLargeTrendIsNotSteady() {
        long[] c = new long[60];
        for (int i = 0; i < c.length; i++) {
            c[i] = 2 + i / 6; // 2 → 11 ops/s
        }
        SteadyState.Verdict v = SteadyState.judge(c, 1);
        assertEquals(SteadyState.NOT_STEADY, v.verdict(), v.reason());
        assertTrue(v.trendCi95().get(0) > 0, "significant: " + v.trendCi95());
    }

    @Test
    void fewOpsInAShortWindowAreUndeterminedWithTheWindowThatWouldTell() {
        // ~2.7 ops/s, Poisson-like, over 20 s: far too noisy to bound the trend to ±10 %/min
        SplittableRandom r = new SplittableRandom(7);
        long[] c = new long[20];
        for (int i = 0; i < c.length; i++) {
            c[i] = r.nextInt(0, 6);
        }
        SteadyState.Verdict v = SteadyState.judge(c, 1);
        assertEquals(SteadyState.UNDETERMINED, v.verdict(), v.reason());
        assertNotNull(v.wouldTellSeconds());
        assertTrue(v.wouldTellSeconds() > 20, "a longer window: " + v.wouldTellSeconds());
        assertTrue(v.reason().contains("would tell"), v.reason());
    }

    @Test
    void wavesWidenTheInterval() {
        // the same mean and amplitude, once alternating every bin, once in slow waves of 20 bins: the slow
        // waves' neighbouring bins move together, which the interval must account for
        long[] fast = new long[80];
        long[] slow = new long[80];
        for (int i = 0; i < 80; i++) {
            fast[i] = i % 2 == 0 ? 4 : 6;
            slow[i] = (i / 10) % 2 == 0 ? 4 : 6;
        }
        SteadyState.Verdict f = SteadyState.judge(fast, 1);
        SteadyState.Verdict s = SteadyState.judge(slow, 1);
        assertTrue(s.lag1() > 0.5, "slow waves are autocorrelated: " + s.lag1());
        double wf = f.trendCi95().get(1) - f.trendCi95().get(0);
        double ws = s.trendCi95() == null ? Double.POSITIVE_INFINITY : s.trendCi95().get(1) - s.trendCi95().get(0);
        assertTrue(ws > 2 * wf, "waves widen the interval: " + f.reason() + " / " + s.reason());
        assertTrue(!s.steady() || f.steady(), s.reason());
    }

    @Test
    void tooFewBinsOrNoOpsAreNeverSteady() {
        SteadyState.Verdict few = SteadyState.judge(paced(5, 5), 1);
        assertEquals(SteadyState.UNDETERMINED, few.verdict());
        assertNull(few.trendPercentPerMinute());
        assertTrue(few.reason().contains("--duration"), few.reason());
        SteadyState.Verdict none = SteadyState.judge(new long[30], 1);
        assertEquals(SteadyState.NOT_STEADY, none.verdict());
        assertNotNull(none.reason());
    }
}
