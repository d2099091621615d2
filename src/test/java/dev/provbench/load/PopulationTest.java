package dev.provbench.load;

import dev.provbench.InMemoryApi;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Population} against fabric8's in-memory API (CRUD mode, on 127.0.0.1), which has no PV controller: what the
 * population finds, refuses and removes. (Making one that binds is RunCommandTest's, on --local's stand-ins, and
 * hack/scale-check's, on the real pipeline.)
 */
class PopulationTest {
    @RegisterExtension
    final InMemoryApi api = new InMemoryApi();
    private KubernetesClient client;

    @BeforeEach
    void start() {
        client = api.client();
    }

    private void claim(String ns, String name, String mode, String volume) {
        client.persistentVolumeClaims().inNamespace(ns).resource(new PersistentVolumeClaimBuilder().withNewMetadata()
                .withName(name).addToLabels(Population.LABEL, mode).endMetadata().withNewSpec().withVolumeName(volume)
                .withAccessModes("ReadWriteOnce").withNewResources().addToRequests("storage", new Quantity("1Gi"))
                .endResources().endSpec().build()).create();
    }

    @Test
    void namesAreIndexed() {
        assertEquals(7, Population.index(Population.claimName(7)));
        assertEquals(-1, Population.index("pb-1234-7"));
        assertEquals(-1, Population.index("pbpop-x"));
        assertEquals("pbpop-ns-3", Population.volumeName("ns", 3));
    }

    /** A population of the other mode in the namespace is refused at once, naming the command that removes it. */
    @Test
    void aPopulationOfTheOtherModeIsRefused() {
        claim("default", "pbpop-0", "provisioned", null);
        Population p = new Population(client, "default", "sc", "drv", "1Gi", "ReadWriteOnce", Population.Mode.PREBOUND);
        List<String> said = new ArrayList<>();
        Population.Failed f = assertThrows(Population.Failed.class, () -> p.ensure(5, said::add, () -> false));
        assertTrue(f.getMessage().contains("provisioned") && f.getMessage().contains("cleanup --population"),
                f.getMessage());
        assertEquals(1, Population.count(client, "default"), "nothing was made or removed");
    }

    /**
     * Removal takes the population's claims and the prebound PVs the tool wrote (by their label), and leaves other
     * claims, other namespaces' populations and other PVs alone.
     */
    @Test
    void removalTakesThePopulationOnly() throws Exception {
        for (int i = 0; i < 3; i++) {
            claim("default", Population.claimName(i), "prebound", Population.volumeName("default", i));
            client.persistentVolumes().resource(new PersistentVolumeBuilder().withNewMetadata()
                    .withName(Population.volumeName("default", i)).addToLabels(Population.LABEL, "default")
                    .endMetadata().withNewSpec().addToCapacity("storage", new Quantity("1Gi"))
                    .withPersistentVolumeReclaimPolicy("Retain").endSpec().build()).create();
        }
        claim("other", Population.claimName(0), "prebound", null);
        client.persistentVolumeClaims().inNamespace("default").resource(new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName("someone-elses").endMetadata().build()).create();
        client.persistentVolumes().resource(new PersistentVolumeBuilder().withNewMetadata().withName("pv-other")
                .endMetadata().build()).create();
        Population.Removal r = Population.remove(client, "default", Duration.ofSeconds(20));
        assertTrue(r.clean(), r.left().toString());
        assertEquals(3, r.claimsDeleted());
        assertEquals(3, r.volumesDeleted());
        assertEquals(0, Population.count(client, "default"));
        assertEquals(1, Population.count(client, "other"));
        assertEquals(1, client.persistentVolumeClaims().inNamespace("default").list().getItems().size());
        assertEquals(1, client.persistentVolumes().list().getItems().size());
    }
}
