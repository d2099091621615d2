import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.provbench.load.Views;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the tool's PV list-watch holds and spends per PV (hack/bench/pv-cache, issue 49): a LIST answer of N PVs as
 * kube-apiserver writes them for csi-provisioner's volumes (managedFields and all), read the way load.ListWatch reads a
 * page (Jackson's streaming parser, each item into a load.Views.Volume, into a ConcurrentHashMap by name, as its
 * cache); the heap the cache holds after a full GC, per PV, and this thread's CPU time for the read. Args: N ROUNDS
 */
public class PvCache {
    static final String PV = """
            {"metadata":{"name":"pvc-%1$s","uid":"%2$s","resourceVersion":"%3$d","creationTimestamp":"2026-12-04T16:33:10Z",\
            "annotations":{"pv.kubernetes.io/provisioned-by":"mock.csi.provbench.dev","volume.kubernetes.io/provisioner-deletion-secret-name":"",\
            "volume.kubernetes.io/provisioner-deletion-secret-namespace":""},"finalizers":["external-provisioner.volume.kubernetes.io/finalizer",\
            "kubernetes.io/pv-protection"],"managedFields":[{"manager":"csi-provisioner","operation":"Update","apiVersion":"v1",\
            "time":"2026-12-04T16:33:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},\
            "f:pv.kubernetes.io/provisioned-by":{}},"f:finalizers":{}},"f:spec":{"f:accessModes":{},"f:capacity":{},\
            "f:claimRef":{},"f:csi":{},"f:persistentVolumeReclaimPolicy":{},"f:storageClassName":{},"f:volumeMode":{}}}},\
            {"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-12-04T16:33:10Z",\
            "fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:phase":{}}},"subresource":"status"}]},\
            "spec":{"capacity":{"storage":"1Gi"},"csi":{"driver":"mock.csi.provbench.dev","volumeHandle":"%4$s",\
            "volumeAttributes":{"storage.kubernetes.io/csiProvisionerIdentity":"1764865990123-1234-mock.csi.provbench.dev"}},\
            "accessModes":["ReadWriteOnce"],"claimRef":{"kind":"PersistentVolumeClaim","namespace":"pop","name":"pbpop-%5$d",\
            "uid":"%1$s","apiVersion":"v1","resourceVersion":"%6$d"},"persistentVolumeReclaimPolicy":"Delete",\
            "storageClassName":"provbench","volumeMode":"Filesystem"},"status":{"phase":"Bound",\
            "lastPhaseTransitionTime":"2026-12-04T16:33:10Z"}}""";

    /** The cache being measured, reachable from here while the heap is read. */
    static volatile Map<String, Views.Volume> held;

    static long used() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        Random random = new Random(42);
        StringBuilder b = new StringBuilder("{\"kind\":\"PersistentVolumeList\",\"apiVersion\":\"v1\",\"metadata\":"
                + "{\"resourceVersion\":\"123456\"},\"items\":[");
        for (int i = 0; i < n; i++) {
            String claim = new java.util.UUID(random.nextLong(), random.nextLong()).toString();
            b.append(i == 0 ? "" : ",").append(PV.formatted(claim, new java.util.UUID(random.nextLong(),
                    random.nextLong()), 100000 + i, "pvc-" + claim, i, 90000 + i));
        }
        byte[] list = b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        b = null;
        JsonFactory json = new JsonFactory();
        var threads = ManagementFactory.getThreadMXBean();
        System.out.printf("# %d PVs, a LIST answer of %.1f MiB%n", n, list.length / 1048576.0);
        for (int r = 0; r < rounds; r++) {
            held = null;
            long before = used();
            long cpu0 = threads.getCurrentThreadCpuTime();
            Map<String, Views.Volume> cache = new ConcurrentHashMap<>();
            try (JsonParser p = json.createParser(list)) {
                p.nextToken();
                while (p.nextToken() != JsonToken.END_OBJECT) {
                    String f = p.currentName();
                    p.nextToken();
                    if ("items".equals(f)) {
                        while (p.nextToken() == JsonToken.START_OBJECT) {
                            Views.Volume v = Views.volume(p);
                            cache.put(v.name(), v);
                        }
                    } else {
                        p.skipChildren();
                    }
                }
            }
            long cpu = threads.getCurrentThreadCpuTime() - cpu0;
            held = cache;
            cache = null;
            long after = used();
            int size = held.size();
            held = null;
            System.out.printf("round %d: %d PVs held, %.0f bytes per PV retained, read in %.3f s of CPU%n", r + 1,
                    size, (after - before) / (double) n, cpu / 1e9);
        }
    }
}
