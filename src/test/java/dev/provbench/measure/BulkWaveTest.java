package dev.provbench.measure;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class BulkWaveTest {

    /** 100 events, one every 10 ms: the 10th at 90 ms, the 90th at 890 ms; 80 events in 0.8 s is 100/s. */
    @Test
    void steadySlopeIsBetweenTheTenthAndTheNinetiethPercent() {
        long[] t = new long[100];
        for (int i = 0; i < t.length; i++) {
            t[i] = i * 10_000_000L;
        }
        assertEquals(100.0, BulkWave.steady(t, 100), 1e-9);
    }

    /** A slow start and a long tail do not move the steady slope; completions out of order are sorted. */
    @Test
    void startAndTailDoNotCount() {
        long[] t = new long[100];
        for (int i = 0; i < t.length; i++) {
            t[i] = 5_000_000_000L + i * 10_000_000L;
        }
        t[0] = 0; // the first claim took 5 s longer
        t[99] = 60_000_000_000L; // the last one a minute
        long x = t[50];
        t[50] = t[51];
        t[51] = x;
        assertEquals(100.0, BulkWave.steady(t, 100), 1e-9);
    }

    @Test
    void noSlopeBelowTenOrShortOfNinetyPercent() {
        assertNull(BulkWave.steady(new long[]{1, 2, 3}, 9));
        long[] t = new long[80];
        for (int i = 0; i < t.length; i++) {
            t[i] = i * 1_000_000L;
        }
        assertNull(BulkWave.steady(t, 100), "80 of 100: the 90 % mark was not reached");
    }
}
