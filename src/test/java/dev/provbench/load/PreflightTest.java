package dev.provbench.load;

import dev.provbench.InMemoryApi;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Preflight}'s StorageClass checks against fabric8's in-memory API (CRUD mode, on 127.0.0.1): a class whose
 * PVs outlive their claims is refused, naming the policy and what to use instead. (The in-memory API answers a
 * SelfSubjectAccessReview without a status, so a class that passes is then stopped by the rights check: the test
 * asserts only on what the class check says.)
 */
class PreflightTest {
    @RegisterExtension
    final InMemoryApi api = new InMemoryApi();
    private KubernetesClient client;

    @BeforeEach
    void start() {
        client = api.client();
        client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                .withName("default").endMetadata().build()).create();
    }

    private void storageClass(String name, String policy) {
        client.storage().v1().storageClasses().resource(new StorageClassBuilder().withNewMetadata().withName(name)
                .endMetadata().withProvisioner("d.example").withReclaimPolicy(policy)
                .withVolumeBindingMode("Immediate").build()).create();
    }

    private Preflight.Result check(String sc) {
        RunConfig cfg = new RunConfig(4, Duration.ofMinutes(1), 0, Duration.ofSeconds(30), "default", sc, "1Gi",
                "ReadWriteOnce", RunConfig.WaitMode.INFORMER, 5, 10, Duration.ofSeconds(10), Duration.ZERO,
                Duration.ofMinutes(5), Duration.ofSeconds(20), Duration.ofMinutes(3), Duration.ofSeconds(30), null);
        return Preflight.check(client, cfg, "r" + sc.length()); // the in-memory API stores the dry run's claim
    }

    @Test
    void aClassThatRetainsItsVolumesIsRefusedByName() {
        storageClass("keep", "Retain");
        Preflight.Result r = check("keep");
        assertNotNull(r.fatal());
        assertTrue(r.fatal().contains("StorageClass 'keep' has reclaimPolicy Retain"), r.fatal());
        assertTrue(r.fatal().contains("same provisioner (d.example) with reclaimPolicy Delete"), r.fatal());
    }

    @Test
    void deleteAndTheDefaultPolicyPassTheClassCheck() {
        storageClass("gone", "Delete");
        storageClass("default-policy", null); // the API server writes Delete; the in-memory one leaves it out
        for (String sc : new String[]{"gone", "default-policy"}) {
            Preflight.Result r = check(sc);
            assertFalse(r.fatal() != null && r.fatal().contains("reclaimPolicy"), sc + ": " + r.fatal());
            assertTrue(r.fatal() == null || r.fatal().startsWith("this identity may not"), sc + ": " + r.fatal());
        }
    }

    @Test
    void anotherRunWhoseNewestClaimIsYoungMayStillBeRunning() {
        Preflight.Result r = new Preflight.Result(null, java.util.List.of(), java.util.Map.of("busy", 3, "dead", 2),
                "d.example", java.util.Map.of("busy", 4L, "dead", Preflight.ACTIVE_WITHIN.toSeconds() + 1));
        assertTrue(r.active().equals(java.util.Set.of("busy")), r.active().toString());
        assertTrue(r.staleClaims() == 5);
    }
}
