package dev.provbench.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Watch events decoded as they stream in come out as fabric8's own decoding makes them, whatever the order. */
class WatchEventsTest {
    // as kube-apiserver writes them: kind, then apiVersion, then the rest
    static final String PV = "{\"kind\":\"PersistentVolume\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"pvc-1\","
            + "\"uid\":\"u-1\",\"resourceVersion\":\"42\",\"labels\":{\"a\":\"b\"},\"managedFields\":[{\"manager\":"
            + "\"m\",\"operation\":\"Update\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{}}}]},"
            + "\"spec\":{\"claimRef\":{\"name\":\"c\",\"namespace\":\"ns\",\"uid\":\"cu\"},\"capacity\":{\"storage\":"
            + "\"1Gi\"},\"csi\":{\"driver\":\"d\",\"volumeHandle\":\"h-1\",\"volumeAttributes\":{\"x\":\"y\"}}},"
            + "\"status\":{\"phase\":\"Bound\"}}";

    private static final KubernetesSerialization OURS = KubeClients.serialization();
    private static final KubernetesSerialization FABRIC8S = new KubernetesSerialization();

    private static WatchEvent event(KubernetesSerialization s, String type, String object) {
        return s.unmarshal("{\"type\":\"" + type + "\",\"object\":" + object + "}", WatchEvent.class);
    }

    /** The same object as fabric8's decoding, without managedFields (the run client's rule). */
    private static void sameAsFabric8s(String object) {
        WatchEvent ours = event(OURS, "MODIFIED", object);
        WatchEvent theirs = event(FABRIC8S, "MODIFIED", object);
        assertEquals("MODIFIED", ours.getType());
        assertEquals(theirs.getObject().getClass(), ours.getObject().getClass());
        Object expected = theirs.getObject();
        Object got = ours.getObject();
        if (expected instanceof io.fabric8.kubernetes.api.model.HasMetadata h && h.getMetadata() != null) {
            h.getMetadata().setManagedFields(null);
        }
        if (got instanceof io.fabric8.kubernetes.api.model.HasMetadata h && h.getMetadata() != null
                && h.getMetadata().getManagedFields() != null && h.getMetadata().getManagedFields().isEmpty()) {
            h.getMetadata().setManagedFields(null);
        }
        assertEquals(FABRIC8S.asJson(expected), FABRIC8S.asJson(got), object);
    }

    @Test
    void aPersistentVolumeInTheServersOrderIsReadStraightIntoTheModel() {
        // the registry the fast path looks the class up in knows fabric8's built-in kinds
        assertEquals(PersistentVolume.class, OURS.getRegisteredKubernetesResource("v1", "PersistentVolume"));
        WatchEvent e = event(OURS, "ADDED", PV);
        PersistentVolume pv = assertInstanceOf(PersistentVolume.class, e.getObject());
        assertEquals("pvc-1", pv.getMetadata().getName());
        assertEquals("h-1", pv.getSpec().getCsi().getVolumeHandle());
        assertEquals("y", pv.getSpec().getCsi().getVolumeAttributes().get("x"));
        assertEquals("Bound", pv.getStatus().getPhase());
        assertEquals("v1", pv.getApiVersion());
        assertEquals("PersistentVolume", pv.getKind());
        assertNull(pv.getMetadata().getManagedFields() == null || pv.getMetadata().getManagedFields().isEmpty()
                ? null : "managedFields");
        sameAsFabric8s(PV);
    }

    @Test
    void everyOtherShapeComesOutAsFabric8MakesIt() {
        // type fields after the metadata, apiVersion first, only one of them, an unknown kind, a Status, a bookmark
        sameAsFabric8s("{\"metadata\":{\"name\":\"x\"},\"kind\":\"PersistentVolume\",\"apiVersion\":\"v1\","
                + "\"spec\":{\"capacity\":{\"storage\":\"1Gi\"}}}");
        sameAsFabric8s("{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\","
                + "\"namespace\":\"ns\"},\"spec\":{\"volumeName\":\"pvc-1\"},\"status\":{\"phase\":\"Bound\"}}");
        sameAsFabric8s("{\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"x\"}}");
        sameAsFabric8s("{\"kind\":\"Widget\",\"apiVersion\":\"example.com/v1\",\"metadata\":{\"name\":\"w\"},"
                + "\"spec\":{\"size\":3}}");
        sameAsFabric8s("{\"kind\":\"PersistentVolume\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":"
                + "\"99\"}}");
        sameAsFabric8s("{\"kind\":\"PersistentVolume\",\"apiVersion\":\"v1\"}");
        assertInstanceOf(PersistentVolumeClaim.class, event(OURS, "ADDED", "{\"apiVersion\":\"v1\",\"kind\":"
                + "\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\"}}").getObject());
        assertInstanceOf(GenericKubernetesResource.class, event(OURS, "ADDED", "{\"kind\":\"Widget\",\"apiVersion\":"
                + "\"example.com/v1\",\"metadata\":{\"name\":\"w\"}}").getObject());
        Status s = assertInstanceOf(Status.class, event(OURS, "ERROR", "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version\",\"reason\":"
                + "\"Expired\",\"code\":410}").getObject());
        assertEquals(410, s.getCode());
        WatchEvent none = OURS.unmarshal("{\"type\":\"BOOKMARK\",\"object\":null,\"extra\":[1,{\"a\":2}]}",
                WatchEvent.class);
        assertEquals("BOOKMARK", none.getType());
        assertNull(none.getObject());
    }
}
