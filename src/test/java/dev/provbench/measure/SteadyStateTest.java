package dev.provbench.measure;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SteadyStateTest {

    @Test
    void noisyButFlatIsSteady() {
        SteadyState.Verdict v = SteadyState.judge(new double[]{5.1, 4.8, 5.3, 4.9, 5.0, 5.2, 4.7, 5.1}, 10);
        assertTrue(v.steady(), v.reason());
        assertEquals(8, v.intervals());
        assertTrue(v.trendCi95().get(0) < 0 && v.trendCi95().get(1) > 0, "the interval holds 0: " + v.trendCi95());
        assertTrue(v.cv() > 0 && v.cv() < 0.1, "cv " + v.cv());
    }

    @Test
    void aRealAndLargeTrendIsNotSteady() {
        // ramps from 1 to 4.5 ops/s over 80 s: +50 % of the mean per 10 s
        SteadyState.Verdict v = SteadyState.judge(new double[]{1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5}, 10);
        assertFalse(v.steady(), v.reason());
        assertTrue(v.trendPercentPerMinute() > 100, "trend " + v.trendPercentPerMinute());
        assertTrue(v.trendCi95().get(0) > 0, "significant: " + v.trendCi95());
        assertTrue(v.reason().startsWith("not steady"), v.reason());
    }

    @Test
    void aSignificantButSmallTrendIsSteady() {
        // a tiny, perfectly regular rise: significant, yet 2 % over the window
        SteadyState.Verdict v = SteadyState.judge(new double[]{10.00, 10.04, 10.08, 10.12, 10.16}, 10);
        assertTrue(v.trendCi95().get(0) > 0, "significant: " + v.trendCi95());
        assertTrue(v.steady(), v.reason());
    }

    @Test
    void tooFewIntervalsOrNoOpsAreNotJudgedSteady() {
        SteadyState.Verdict two = SteadyState.judge(new double[]{5, 5}, 10);
        assertFalse(two.steady());
        assertNull(two.trendPercentPerMinute());
        assertTrue(two.reason().contains("--duration"), two.reason());
        SteadyState.Verdict none = SteadyState.judge(new double[]{0, 0, 0, 0}, 10);
        assertFalse(none.steady());
        assertNotNull(none.reason());
    }
}
