package dev.provbench.run;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The op timeout a run gets when --op-timeout is not given: a bulk wave's grows with the wave. */
class BulkOpTimeoutTest {

    private static Duration opTimeout(String mode, Long count, String given) {
        RunRequest r = new RunRequest();
        r.mode = mode;
        r.count = count;
        r.opTimeout = given;
        r.local = true;
        return r.check().config().opTimeout();
    }

    @Test
    void churnWaitsTwoMinutes() {
        assertEquals(Duration.ofMinutes(2), opTimeout("churn", null, null));
    }

    @Test
    void aWaveOfUpTo1800ClaimsWaitsThirtyMinutes() {
        assertEquals(Duration.ofMinutes(30), opTimeout("bulk", 60L, null));
        assertEquals(Duration.ofMinutes(30), opTimeout("bulk", 1800L, null));
    }

    @Test
    void aBiggerWaveWaitsASecondPerClaim() {
        // 10,000 at csi-provisioner's default QPS 5: ~34 minutes to bind the last, ~67 to delete it
        assertEquals(Duration.ofSeconds(10_000), opTimeout("bulk", 10_000L, null));
    }

    @Test
    void theDefaultStopsAtTheDurationLimit() {
        assertEquals(RunLimits.Values.DEFAULT.duration(), opTimeout("bulk", 1_000_000L, null));
    }

    @Test
    void aGivenTimeoutWins() {
        assertEquals(Duration.ofMinutes(5), opTimeout("bulk", 10_000L, "5m"));
        assertEquals(Duration.ofSeconds(30), opTimeout("churn", null, "30s"));
    }
}
