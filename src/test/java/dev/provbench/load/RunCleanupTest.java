package dev.provbench.load;

import dev.provbench.InMemoryApi;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RunCleanup} against fabric8's in-memory API (CRUD mode, on 127.0.0.1). There is no PV controller
 * or provisioner here: the test's sleeper plays csi-provisioner, deleting a PV once its claim is gone.
 */
class RunCleanupTest {
    @RegisterExtension
    final InMemoryApi api = new InMemoryApi();
    private KubernetesClient client;

    @BeforeEach
    void start() {
        client = api.client();
    }

    private PersistentVolumeClaim claim(String runId, int n, String volume) {
        PersistentVolumeClaim c = client.persistentVolumeClaims().inNamespace("default").resource(
                new PersistentVolumeClaimBuilder().withNewMetadata().withName("pb-" + runId + "-" + n)
                        .withUid(UUID.randomUUID().toString())
                        .addToLabels(RunConfig.LABEL, runId).endMetadata()
                        .withNewSpec().withVolumeName(volume).withAccessModes("ReadWriteOnce").withNewResources()
                        .addToRequests("storage", new Quantity("1Gi")).endResources().endSpec().build()).create();
        return c;
    }

    private void volume(String name, String claimName, String claimUid) {
        client.persistentVolumes().resource(new PersistentVolumeBuilder().withNewMetadata().withName(name)
                .endMetadata().withNewSpec().withNewClaimRef().withNamespace("default").withName(claimName)
                .withUid(claimUid).endClaimRef().endSpec().build()).create();
    }

    /** csi-provisioner's part: a PV whose claim is gone is deleted (on each wait between rounds). */
    private RunCleanup.Sleeper provisioner() {
        return millis -> {
            for (PersistentVolume v : client.persistentVolumes().list().getItems()) {
                String claim = v.getSpec().getClaimRef().getName();
                if (client.persistentVolumeClaims().inNamespace("default").withName(claim).get() == null) {
                    client.persistentVolumes().withName(v.getMetadata().getName()).delete();
                }
            }
            Thread.sleep(Math.min(millis, 20));
        };
    }

    @Test
    void removesOneRunsClaimsAndWaitsForTheirVolumesIncludingOnesItNeverSawTheClaimOf() {
        PersistentVolumeClaim a = claim("aaaa1111", 1, "pv-a1");
        volume("pv-a1", a.getMetadata().getName(), a.getMetadata().getUid());
        claim("aaaa1111", 2, null);
        // a PV made for a claim of the run deleted before cleanup started: found by the claim's name
        volume("pv-a9", "pb-aaaa1111-9", UUID.randomUUID().toString());
        PersistentVolumeClaim other = claim("bbbb2222", 1, "pv-b1");
        volume("pv-b1", other.getMetadata().getName(), other.getMetadata().getUid());

        RunCleanup.Result r = new RunCleanup(client, "default", "aaaa1111", Duration.ofSeconds(20), provisioner())
                .run();

        assertTrue(r.clean(), r.leftover().toString());
        assertEquals(2, r.deletedClaims());
        assertEquals(List.of("pb-aaaa1111-1", "pb-aaaa1111-2"), r.removedClaims());
        assertEquals(List.of("pv-a1", "pv-a9"), r.removedVolumes());
        assertTrue(client.persistentVolumeClaims().inNamespace("default").withName("pb-bbbb2222-1").get() != null,
                "another run's claim stays");
        assertTrue(client.persistentVolumes().withName("pv-b1").get() != null, "and its volume");
    }

    @Test
    void allRemovesEveryRunsClaimsButNoOtherClaim() {
        claim("aaaa1111", 1, null);
        claim("bbbb2222", 1, null);
        client.persistentVolumeClaims().inNamespace("default").resource(new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName("pb-users-1").endMetadata().withNewSpec().endSpec().build()).create();

        RunCleanup.Result r = new RunCleanup(client, "default", null, Duration.ofSeconds(20), provisioner()).run();

        assertTrue(r.clean(), r.leftover().toString());
        assertEquals(List.of("pb-aaaa1111-1", "pb-bbbb2222-1"), r.removedClaims());
        assertTrue(client.persistentVolumeClaims().inNamespace("default").withName("pb-users-1").get() != null,
                "a claim without the run label is not touched, whatever its name");
    }

    @Test
    void whatStaysIsListedFromTheClusterWithItsReason() {
        PersistentVolumeClaim a = claim("aaaa1111", 1, "pv-stuck");
        volume("pv-stuck", a.getMetadata().getName(), a.getMetadata().getUid());
        // nobody deletes the PV: cleanup gives up at its timeout and says what is left
        RunCleanup.Result r = new RunCleanup(client, "default", "aaaa1111", Duration.ofMillis(600),
                millis -> Thread.sleep(Math.min(millis, 50))).run();

        assertFalse(r.clean());
        assertEquals(1, r.leftover().size(), r.leftover().toString());
        RunCleanup.Leftover l = r.leftover().get(0);
        assertEquals("PersistentVolume", l.kind());
        assertEquals("pv-stuck", l.name());
        assertTrue(l.reason().contains("cleanup timeout"), l.reason());
        assertEquals(List.of("pb-aaaa1111-1"), r.removedClaims());
    }

    @Test
    void anUnreachableClusterIsNeverReportedClean() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        Config config = new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + port).withRequestRetryBackoffLimit(0)
                .withConnectionTimeout(500).build();
        try (KubernetesClient down = new KubernetesClientBuilder().withConfig(config).build()) {
            RunCleanup.Result r = new RunCleanup(down, "default", "aaaa1111", Duration.ofMillis(800),
                    millis -> Thread.sleep(Math.min(millis, 50))).run();
            assertFalse(r.clean());
            assertEquals("unknown", r.leftover().get(0).kind(), r.leftover().toString());
            assertTrue(r.lastError() != null && r.rounds() >= 2, r.toString());
        }
    }

    /**
     * A run spread over namespaces: its claims removed in each, then the namespaces it made (labelled with it)
     * deleted; a namespace it did not make is kept, and one it made that holds another's claim is kept and named.
     */
    @Test
    void aSpreadRunIsCleanedInEachNamespaceAndTheOnesItMadeGoOnceEmpty() {
        RunNamespaces spread = new RunNamespaces("load", 3);
        client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                .withName("load-0").endMetadata().build()).create(); // there before the run: kept
        List<String> made = new java.util.ArrayList<>();
        spread.create(client, "aaaa1111", made);
        assertEquals(List.of("load-1", "load-2"), made);
        assertEquals("aaaa1111", client.namespaces().withName("load-1").get().getMetadata().getLabels()
                .get(RunConfig.LABEL));
        for (int n = 0; n < 6; n++) {
            client.persistentVolumeClaims().inNamespace(spread.of(n)).resource(new PersistentVolumeClaimBuilder()
                    .withNewMetadata().withName("pb-aaaa1111-" + n).addToLabels(RunConfig.LABEL, "aaaa1111")
                    .endMetadata().withNewSpec().endSpec().build()).create();
        }
        // another tenant's claim in a namespace the run made
        client.persistentVolumeClaims().inNamespace("load-2").resource(new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName("users-1").endMetadata().withNewSpec().endSpec().build()).create();

        RunCleanup.Result r = new RunCleanup(client, spread, "aaaa1111", Duration.ofSeconds(20), provisioner()).run();

        assertEquals(6, r.deletedClaims());
        for (String ns : spread.names()) {
            assertTrue(client.persistentVolumeClaims().inNamespace(ns).withLabel(RunConfig.LABEL).list().getItems()
                    .isEmpty(), ns);
        }
        assertTrue(client.namespaces().withName("load-0").get() != null, "not the run's: kept");
        assertEquals(null, client.namespaces().withName("load-1").get(), "made by the run, empty: deleted");
        assertTrue(client.namespaces().withName("load-2").get() != null, "holds another's claim: kept");
        assertEquals(1, r.leftover().size(), r.leftover().toString());
        assertEquals("Namespace", r.leftover().get(0).kind());
        assertEquals("load-2", r.leftover().get(0).name());
        assertTrue(r.leftover().get(0).reason().contains("claims of others"), r.leftover().get(0).reason());
    }
}
