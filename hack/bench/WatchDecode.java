import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provbench.kube.KubeClients;
import dev.provbench.load.ListWatch;
import dev.provbench.load.Views;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * What decoding one PV watch event costs the tool (hack/bench/watch-decode): the event as kube-apiserver writes it
 * for a PV csi-provisioner made and the PV controller bound, decoded by each way the tool has had, in a random order
 * per round, each from the event's bytes through the String a WebSocket text message makes of them; CPU time and
 * bytes allocated by this thread, per event. Args: ROUNDS EVENTS
 */
public class WatchDecode {
    static final String EVENT = """
            {"type":"MODIFIED","object":{"kind":"PersistentVolume","apiVersion":"v1","metadata":{"name":"pvc-%1$s",\
            "uid":"%2$s","resourceVersion":"%3$d","creationTimestamp":"2026-12-04T16:33:10Z","annotations":\
            {"pv.kubernetes.io/provisioned-by":"mock.csi.provbench.dev","volume.kubernetes.io/provisioner-deletion-secret-name":"",\
            "volume.kubernetes.io/provisioner-deletion-secret-namespace":""},"finalizers":["external-provisioner.volume.kubernetes.io/finalizer",\
            "kubernetes.io/pv-protection"],"managedFields":[{"manager":"csi-provisioner","operation":"Update","apiVersion":"v1",\
            "time":"2026-12-04T16:33:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},\
            "f:pv.kubernetes.io/provisioned-by":{},"f:volume.kubernetes.io/provisioner-deletion-secret-name":{},\
            "f:volume.kubernetes.io/provisioner-deletion-secret-namespace":{}},"f:finalizers":{"v:\\"external-provisioner.volume.kubernetes.io/finalizer\\"":{}}},\
            "f:spec":{"f:accessModes":{},"f:capacity":{".":{},"f:storage":{}},"f:claimRef":{".":{},"f:apiVersion":{},"f:kind":{},\
            "f:name":{},"f:namespace":{},"f:resourceVersion":{},"f:uid":{}},"f:csi":{".":{},"f:driver":{},"f:volumeAttributes":\
            {".":{},"f:storage.kubernetes.io/csiProvisionerIdentity":{}},"f:volumeHandle":{}},"f:persistentVolumeReclaimPolicy":{},\
            "f:storageClassName":{},"f:volumeMode":{}}}},{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1",\
            "time":"2026-12-04T16:33:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:phase":{}}},"subresource":"status"}]},\
            "spec":{"capacity":{"storage":"1Gi"},"csi":{"driver":"mock.csi.provbench.dev","volumeHandle":"%4$s",\
            "volumeAttributes":{"storage.kubernetes.io/csiProvisionerIdentity":"1764865990123-1234-mock.csi.provbench.dev"}},\
            "accessModes":["ReadWriteOnce"],"claimRef":{"kind":"PersistentVolumeClaim","namespace":"default","name":"pb-66ecc337-%5$d",\
            "uid":"%1$s","apiVersion":"v1","resourceVersion":"%6$d"},"persistentVolumeReclaimPolicy":"Delete",\
            "storageClassName":"provbench","volumeMode":"Filesystem"},"status":{"phase":"Bound",\
            "lastPhaseTransitionTime":"2026-12-04T16:33:10Z"}}}""";

    @JsonIgnoreProperties("managedFields")
    abstract static class WithoutManagedFields {
    }

    /** One way: fabric8's serialization or ours, each given the event as the String a WebSocket text message is. */
    record Way(String name, KubernetesSerialization serialization, ListWatch.Decoder<Views.Volume> views) {
        Object decode(byte[] event) {
            try {
                return serialization != null
                        ? serialization.unmarshal(new String(event, StandardCharsets.UTF_8), WatchEvent.class).getObject()
                        : ListWatch.readEvent(new String(event, StandardCharsets.UTF_8), views).object();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        int n = Integer.parseInt(args[1]);
        Random random = new Random(42);
        List<byte[]> events = new ArrayList<>();
        for (int i = 0; i < 512; i++) {
            String claim = new java.util.UUID(random.nextLong(), random.nextLong()).toString();
            events.add(EVENT.formatted(claim, new java.util.UUID(random.nextLong(), random.nextLong()), 100000 + i,
                    "vol-" + random.nextInt(1 << 30), i, 90000 + i).getBytes(StandardCharsets.UTF_8));
        }
        // 92e1bea: fabric8's decoding (a JSON tree, then the object), managedFields skipped
        KubernetesSerialization tree = new KubernetesSerialization(
                new ObjectMapper().addMixIn(ObjectMeta.class, WithoutManagedFields.class), true);
        // the run client's: read as the event streams in (kube.WatchEvents), into the full model
        KubernetesSerialization streaming = KubeClients.serialization();
        List<Way> ways = new ArrayList<>(List.of(new Way("fabric8's (tree, then object), full PV", tree, null),
                new Way("streaming (kube.WatchEvents), full PV", streaming, null),
                new Way("the waits' own (load.ListWatch.readEvent into load.Views.Volume)", null,
                        Views::volume)));
        for (Way w : ways) { // the same result, and warm
            Object o = w.decode(events.get(0));
            String handle = o instanceof PersistentVolume pv ? pv.getSpec().getCsi().getVolumeHandle()
                    : ((Views.Volume) o).handle();
            if (!handle.startsWith("vol-")) {
                throw new IllegalStateException(w.name + ": " + handle);
            }
            decode(w, events, 20_000);
        }
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        double[][] cpu = new double[ways.size()][rounds];
        double[][] alloc = new double[ways.size()][rounds];
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < ways.size(); i++) {
            order.add(i);
        }
        for (int r = 0; r < rounds; r++) {
            Collections.shuffle(order, random);
            for (int i : order) {
                long c0 = mx.getCurrentThreadCpuTime();
                long a0 = mx.getThreadAllocatedBytes(tid);
                decode(ways.get(i), events, n);
                cpu[i][r] = (mx.getCurrentThreadCpuTime() - c0) / 1e3 / n;
                alloc[i][r] = (mx.getThreadAllocatedBytes(tid) - a0) / 1024.0 / n;
            }
        }
        System.out.printf("event: %d bytes (a bound PV, managedFields included)%n", events.get(0).length);
        System.out.println("| way | CPU µs per event (median of rounds) | KiB allocated per event |");
        System.out.println("|---|---|---|");
        for (int i = 0; i < ways.size(); i++) {
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f |%n", ways.get(i).name, median(cpu[i]), median(alloc[i]));
        }
    }

    static int sink;

    static void decode(Way w, List<byte[]> events, int n) {
        for (int i = 0; i < n; i++) {
            sink += w.decode(events.get(i & 511)).hashCode();
        }
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
