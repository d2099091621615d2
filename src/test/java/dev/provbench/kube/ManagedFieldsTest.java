package dev.provbench.kube;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ManagedFieldsTest {
    static final String PV = "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"pvc-1\","
            + "\"uid\":\"u-1\",\"resourceVersion\":\"42\",\"annotations\":{\"pv.kubernetes.io/provisioned-by\":\"x\"},"
            + "\"managedFields\":[{\"manager\":\"csi-provisioner\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
            + "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:capacity\":{\".\":{},\"f:storage\":{}}}}}]},"
            + "\"spec\":{\"claimRef\":{\"name\":\"c\",\"namespace\":\"ns\",\"uid\":\"cu\"},\"capacity\":{\"storage\":"
            + "\"1Gi\"}},\"status\":{\"phase\":\"Bound\"}}";

    @Test
    void theRunsClientSkipsManagedFieldsAndKeepsWhatTheWaitsRead() {
        PersistentVolume pv = KubeClients.SERIALIZATION.unmarshal(PV, PersistentVolume.class);
        assertTrue(pv.getMetadata().getManagedFields() == null || pv.getMetadata().getManagedFields().isEmpty());
        assertFalse(pv.getMetadata().getAdditionalProperties().containsKey("managedFields"));
        assertEquals("pvc-1", pv.getMetadata().getName());
        assertEquals("u-1", pv.getMetadata().getUid());
        assertEquals("42", pv.getMetadata().getResourceVersion());
        assertEquals("cu", pv.getSpec().getClaimRef().getUid());
        assertEquals("Bound", pv.getStatus().getPhase());
        assertEquals("x", pv.getMetadata().getAnnotations().get("pv.kubernetes.io/provisioned-by"));
        // fabric8's own serialization, for contrast, builds them
        assertEquals(1, new io.fabric8.kubernetes.client.utils.KubernetesSerialization()
                .unmarshal(PV, PersistentVolume.class).getMetadata().getManagedFields().size());
    }
}
