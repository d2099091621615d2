package dev.provbench.load;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Stall#judge}: what the Events of a run's first claims say about a cluster that has served nothing. */
class StallTest {
    private static final String PROV = "mock.csi.provbench.dev";
    private static final String PROV_SOURCE = PROV + "_node1_5f2c";

    private static Stall.Seen seen(String claim, String reason, String source, String message, String when) {
        return new Stall.Seen(claim, reason, source, message, when, 0);
    }

    private static Stall.Seen waiting(String claim) {
        return seen(claim, "ExternalProvisioning", Stall.PV_CONTROLLER, "Waiting for a volume to be created either by "
                + "the external provisioner '" + PROV + "' or manually by the system administrator.",
                "2026-12-02T20:00:01Z");
    }

    private static Stall.Verdict judge(List<Stall.Seen> events) {
        return Stall.judge("sc1", PROV, events, 4, 0, null, 31);
    }

    @Test
    void onlyThePvControllersEventMeansNoProvisionerServesTheDriver() {
        Stall.Verdict v = judge(List.of(waiting("pb-r-1"), waiting("pb-r-2")));
        assertTrue(v.stop());
        assertTrue(v.cause().startsWith("no provisioner is serving driver '" + PROV + "' (StorageClass 'sc1')"),
                v.cause());
        assertTrue(v.cause().contains("in 31 s"), v.cause());
    }

    @Test
    void noEventAtAllMeansNothingHandsClaimsToAProvisioner() {
        Stall.Verdict v = judge(List.of());
        assertTrue(v.stop());
        assertTrue(v.cause().contains("is kube-controller-manager running?"), v.cause());
    }

    @Test
    void aProvisionerAtWorkIsSlowNotBroken() {
        assertNull(judge(List.of(waiting("pb-r-1"), seen("pb-r-1", "Provisioning", PROV_SOURCE,
                "External provisioner is provisioning volume for claim \"ns/pb-r-1\"", "2026-12-02T20:00:02Z"))));
        assertNull(judge(List.of(seen("pb-r-1", "ProvisioningSucceeded", PROV_SOURCE, "Successfully provisioned",
                "2026-12-02T20:00:03Z"), seen("pb-r-2", "ProvisioningFailed", PROV_SOURCE,
                "rpc error: code = InvalidArgument desc = no", "2026-12-02T20:00:03Z"))));
    }

    @Test
    void aDriverThatRefusesEveryClaimForGoodStopsTheRunWithItsMessage() {
        String msg = "failed to provision volume with StorageClass \"sc1\": rpc error: code = InvalidArgument desc = "
                + "unknown parameter \"tier\"";
        Stall.Verdict v = judge(List.of(waiting("pb-r-1"),
                seen("pb-r-1", "Provisioning", PROV_SOURCE, "External provisioner is provisioning", "2026-12-02T20:00:02Z"),
                seen("pb-r-1", "ProvisioningFailed", PROV_SOURCE, msg, "2026-12-02T20:00:03Z"),
                seen("pb-r-2", "ProvisioningFailed", PROV_SOURCE, msg, "2026-12-02T20:00:04Z")));
        assertTrue(v.stop());
        assertTrue(v.cause().endsWith("'" + msg + "'"), v.cause());
    }

    @Test
    void failuresThatMayPassAreAWarningAndTheRunGoesOn() {
        Stall.Verdict v = judge(List.of(seen("pb-r-1", "ProvisioningFailed", PROV_SOURCE,
                "rpc error: code = Unavailable desc = connection refused", "2026-12-02T20:00:03Z"),
                seen("pb-r-2", "ProvisioningFailed", PROV_SOURCE, "rpc error: code = InvalidArgument desc = x",
                        "2026-12-02T20:00:02Z")));
        assertFalse(v.stop());
        assertTrue(v.cause().contains("code = Unavailable"), "the latest failure is quoted: " + v.cause());
        assertTrue(v.cause().contains("(2 of 2 claims it took)"), v.cause());
    }

    @Test
    void theLatestEventOfAClaimCountsNotTheLastListed() {
        // Provisioning aggregated (count 2) after the failure: the provisioner took the claim again
        Stall.Verdict v = judge(List.of(
                seen("pb-r-1", "Provisioning", PROV_SOURCE, "External provisioner is provisioning", "2026-12-02T20:00:09Z"),
                seen("pb-r-1", "ProvisioningFailed", PROV_SOURCE, "rpc error: code = InvalidArgument desc = x",
                        "2026-12-02T20:00:05Z")));
        assertNull(v);
    }

    @Test
    void everyCreateRefusedByTheApiServerStopsTheRunNamingTheRefusal() {
        Stall.Verdict v = Stall.judge("sc1", PROV, null, 12, 12, "HTTP 403: exceeded quota: q1", 30);
        assertTrue(v.stop());
        assertEquals("every create was refused by the API server (12 of 12), the last with HTTP 403: exceeded "
                + "quota: q1", v.cause());
        Stall.Verdict some = Stall.judge("sc1", PROV, List.of(), 12, 3, "HTTP 403: exceeded quota: q1", 30);
        assertFalse(some.stop(), "some refused, the rest not yet seen: a warning");
    }

    @Test
    void eventsThatMayNotBeReadAreAWarning() {
        Stall.Verdict v = judge(null);
        assertFalse(v.stop());
        assertTrue(v.cause().contains("RBAC: list events"), v.cause());
    }

    @Test
    void messagesAreOneLineAndBounded() {
        String quoted = Stall.clip("a\nb\t" + "x".repeat(1000));
        assertEquals(Stall.MAX_MESSAGE + 1, quoted.length());
        assertTrue(quoted.startsWith("a b x"));
        assertTrue(quoted.endsWith("…"));
    }
}
