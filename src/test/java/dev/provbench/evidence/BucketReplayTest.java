package dev.provbench.evidence;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BucketReplayTest {
    private static final Instant T0 = Instant.parse("2026-12-03T00:00:00Z");

    private static List<Instant> every(double seconds, int n, double offset) {
        List<Instant> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(T0.plusNanos((long) ((offset + i * seconds) * 1e9)));
        }
        return out;
    }

    @Test
    void aClientSendingAtItsQpsAfterItsBurstIsBoundMostOfTheTime() {
        // a 5/10 bucket: 10 at once, then one every 200 ms for 60 s (what a saturated client-go client does)
        List<Instant> t = new ArrayList<>(every(0.0001, 10, 0));
        t.addAll(every(0.2, 300, 0.2));
        BucketReplay.Result r = BucketReplay.replay(t, 5, 10, T0.plusSeconds(5), T0.plusSeconds(60));
        assertTrue(r.boundShare() > 0.9, "bound " + r.boundShare());
        assertTrue(r.atLimit() >= r.requests() - 2, r.toString());
    }

    @Test
    void aClientWellUnderItsQpsIsNotBound() {
        List<Instant> t = every(1.0, 60, 0); // 1 request a second against 5/10
        BucketReplay.Result r = BucketReplay.replay(t, 5, 10, T0, T0.plusSeconds(60));
        assertEquals(0, r.atLimit());
        assertEquals(0, r.boundShare(), 1e-9);
        assertEquals(60, r.requests());
    }

    @Test
    void burstsBeyondTheBucketCountOnlyTheirTail() {
        // every 10 s a burst of 30 against 5/10: the first 10 at once from the full bucket, the other 20 paced
        // at 5/s as the client sends them once it is empty (~4 s of each 10 under one token)
        List<Instant> t = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            t.addAll(every(0.0001, 10, k * 10));
            t.addAll(every(0.2, 20, k * 10 + 0.2));
        }
        t.sort(null);
        BucketReplay.Result r = BucketReplay.replay(t, 5, 10, T0, T0.plusSeconds(60));
        assertTrue(r.boundShare() > 0.2 && r.boundShare() < 0.8, "partly bound " + r.boundShare());
        assertTrue(r.atLimit() > 0 && r.atLimit() < r.requests(), r.toString());
    }
}
