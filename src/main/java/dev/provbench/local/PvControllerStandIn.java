package dev.provbench.local;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stand-in for kube-controller-manager's PV controller and PVC protection controller. Like the real one
 * (Kubernetes v1.36.3 {@code pv_controller_base.go}) it runs one claim worker and one volume worker over
 * de-duplicating key queues, plus one PVC protection worker, and posts its events through an asynchronous
 * recorder. Each worker sends its requests one after another and waits out each one's {@link ApiLatency} (the
 * in-memory API answers in microseconds; kube-apiserver does not), so at high rates the claim worker — five
 * serial requests per cycle — limits the pipeline as it does on a real control plane. Per cycle, 11 requests:
 * <ul>
 * <li>claim worker: the provisioner annotation on a new claim; on its PV: the PV's bind annotation, PV status
 * Bound, claim volumeName, claim status Bound;
 * <li>volume worker, when the claim is gone: a GET of the claim (404) and PV status Released;
 * <li>PVC protection worker, when the claim is deleted: a LIST of the namespace's pods and a PATCH dropping
 * the protection finalizer (404 here: the in-memory API has no finalizers, the claim is gone already);
 * <li>event recorder: the "ExternalProvisioning" event and the PATCH of its count.
 * </ul>
 * It PATCHes where kube-controller-manager PUTs: one request either way. Its client has no rate limit (a
 * kube-controller-manager at QPS 1000 is not limited by its bucket here).
 */
final class PvControllerStandIn implements AutoCloseable {
    private final KubernetesClient client;
    private final String driverName;
    private final String storageClass;
    private final ApiLatency latency;
    private final EventSink events;
    private final Map<String, String> eventOfClaim = new ConcurrentHashMap<>();
    private final KeyQueue claimQueue;
    private final KeyQueue volumeQueue;
    private final KeyQueue protectionQueue;
    private SharedIndexInformer<PersistentVolumeClaim> claims;
    private SharedIndexInformer<PersistentVolume> volumes;

    PvControllerStandIn(KubernetesClient client, String driverName, String storageClass, ApiLatency latency) {
        this.client = client;
        this.driverName = driverName;
        this.storageClass = storageClass;
        this.latency = latency;
        this.events = new EventSink("pv-controller-events", client, "persistentvolume-controller", latency);
        this.claimQueue = new KeyQueue("pv-controller-claims", this::syncClaim);
        this.volumeQueue = new KeyQueue("pv-controller-volumes", this::syncVolume);
        this.protectionQueue = new KeyQueue("pvc-protection", this::unprotect);
    }

    CompletableFuture<Void> start() {
        claims = client.persistentVolumeClaims().inAnyNamespace().runnableInformer(0);
        claims.addEventHandler(new ResourceEventHandler<>() {
            public void onAdd(PersistentVolumeClaim c) {
                claimQueue.add(key(c.getMetadata().getNamespace(), c.getMetadata().getName()));
            }

            public void onUpdate(PersistentVolumeClaim old, PersistentVolumeClaim c) {
                onAdd(c);
            }

            public void onDelete(PersistentVolumeClaim c, boolean unknown) {
                eventOfClaim.remove(key(c.getMetadata().getNamespace(), c.getMetadata().getName()));
                protectionQueue.add(key(c.getMetadata().getNamespace(), c.getMetadata().getName()));
                // its PV: the one it was bound to, or the one made for it before the binding (the real
                // controller finds that one at its next resync of volumes)
                volumeQueue.add(bound(c) ? c.getSpec().getVolumeName() : "pvc-" + c.getMetadata().getUid());
            }
        });
        volumes = client.persistentVolumes().runnableInformer(0);
        volumes.addEventHandler(new ResourceEventHandler<>() {
            public void onAdd(PersistentVolume v) {
                volumeQueue.add(v.getMetadata().getName());
            }

            public void onUpdate(PersistentVolume old, PersistentVolume v) {
                onAdd(v);
            }

            public void onDelete(PersistentVolume v, boolean unknown) {
            }
        });
        return CompletableFuture.allOf(claims.start().toCompletableFuture(), volumes.start().toCompletableFuture());
    }

    private static String key(String ns, String name) {
        return ns + "/" + name;
    }

    private void patch(String path, String body) {
        try {
            Api.patch(client, path, body);
        } finally {
            latency.answered();
        }
    }

    private boolean ours(PersistentVolumeClaim c) {
        return storageClass.equals(c.getSpec().getStorageClassName()) && c.getMetadata().getDeletionTimestamp() == null;
    }

    private static boolean bound(PersistentVolumeClaim c) {
        return c.getSpec().getVolumeName() != null && !c.getSpec().getVolumeName().isEmpty();
    }

    /** The claim worker: hand a new claim to the external provisioner; bind it to the PV made for it. */
    private void syncClaim(String key) {
        PersistentVolumeClaim c = claims.getIndexer().getByKey(key);
        if (c != null && ours(c) && bound(c) && !"Bound".equals(c.getStatus() == null ? null
                : c.getStatus().getPhase())) {
            bindPrebound(c); // a claim that names its PV (a prebound population's)
            return;
        }
        if (c == null || !ours(c) || bound(c)) {
            return;
        }
        Map<String, String> ann = c.getMetadata().getAnnotations();
        String ns = c.getMetadata().getNamespace();
        String name = c.getMetadata().getName();
        if (ann == null || !ann.containsKey(StandInControllers.ANN_PROVISIONER)) {
            events.record(c, "ExternalProvisioning", "Waiting for a volume to be created either by the external "
                    + "provisioner '" + driverName + "' or manually by the system administrator",
                    event -> eventOfClaim.put(key, event));
            patch(Api.claimPath(ns, name), "{\"metadata\":{\"annotations\":{\"" + StandInControllers.ANN_PROVISIONER + "\":\""
                    + driverName + "\"}}}");
            return;
        }
        PersistentVolume v = volumes.getIndexer().getByKey("pvc-" + c.getMetadata().getUid());
        if (v == null || v.getSpec().getClaimRef() == null
                || !c.getMetadata().getUid().equals(v.getSpec().getClaimRef().getUid())) {
            return;
        }
        String pv = v.getMetadata().getName();
        // taken now: once the claim is Bound the tool may delete it before this worker goes on
        String event = eventOfClaim.remove(key);
        patch(Api.volumePath(pv), "{\"metadata\":{\"annotations\":{\"pv.kubernetes.io/bound-by-controller\":\"yes\"}}}");
        patch(Api.volumePath(pv) + "/status", "{\"status\":{\"phase\":\"Bound\"}}");
        patch(Api.claimPath(ns, name), "{\"spec\":{\"volumeName\":\"" + pv + "\"}}");
        patch(Api.claimPath(ns, name) + "/status", "{\"status\":{\"phase\":\"Bound\",\"capacity\":{\"storage\":\""
                + v.getSpec().getCapacity().get("storage") + "\"}}}");
        if (event != null) { // the waiting event was repeated while the claim waited: the correlator's PATCH
            events.send("event count", () -> Api.patch(client, "/api/v1/namespaces/" + ns + "/events/" + event,
                    "{\"count\":2}"));
        }
    }

    /**
     * A claim written with {@code spec.volumeName} whose PV names it back ({@code claimRef} without a UID): the PV
     * gets the claim's UID and phase Bound, the claim phase Bound — what the real controller's
     * {@code syncUnboundClaim} does for a pre-bound pair.
     */
    private void bindPrebound(PersistentVolumeClaim c) {
        PersistentVolume v = volumes.getIndexer().getByKey(c.getSpec().getVolumeName());
        if (v == null || v.getSpec().getClaimRef() == null
                || !c.getMetadata().getName().equals(v.getSpec().getClaimRef().getName())
                || !c.getMetadata().getNamespace().equals(v.getSpec().getClaimRef().getNamespace())) {
            return; // the PV's event re-queues the claim
        }
        String pv = v.getMetadata().getName();
        patch(Api.volumePath(pv), "{\"spec\":{\"claimRef\":{\"uid\":\"" + c.getMetadata().getUid() + "\"}}}");
        patch(Api.volumePath(pv) + "/status", "{\"status\":{\"phase\":\"Bound\"}}");
        patch(Api.claimPath(c.getMetadata().getNamespace(), c.getMetadata().getName()) + "/status",
                "{\"status\":{\"phase\":\"Bound\",\"capacity\":{\"storage\":\""
                        + v.getSpec().getCapacity().get("storage") + "\"}}}");
    }

    /**
     * The volume worker: a PV whose claim is gone becomes Released (after a GET that confirms the claim is
     * gone), whether or not the binding had finished; a PV made for a claim not yet bound re-queues the claim.
     */
    private void syncVolume(String name) {
        PersistentVolume v = volumes.getIndexer().getByKey(name);
        if (v == null || v.getSpec().getClaimRef() == null || v.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        String claimKey = key(v.getSpec().getClaimRef().getNamespace(), v.getSpec().getClaimRef().getName());
        PersistentVolumeClaim c = claims.getIndexer().getByKey(claimKey);
        if (c != null) {
            if (!bound(c) || !"Bound".equals(c.getStatus() == null ? null : c.getStatus().getPhase())) {
                claimQueue.add(claimKey);
            }
            return;
        }
        String phase = v.getStatus() == null ? null : v.getStatus().getPhase();
        if ("Released".equals(phase) || "Failed".equals(phase)) {
            return;
        }
        try {
            if (client.persistentVolumeClaims().inNamespace(v.getSpec().getClaimRef().getNamespace())
                    .withName(v.getSpec().getClaimRef().getName()).get() != null) {
                return;
            }
        } finally {
            latency.answered();
        }
        patch(Api.volumePath(name) + "/status", "{\"status\":{\"phase\":\"Released\"}}");
    }

    /** The PVC protection worker: a deleted claim loses its finalizer once no pod uses it. */
    private void unprotect(String key) {
        String ns = key.substring(0, key.indexOf('/'));
        try {
            client.pods().inNamespace(ns).list();
        } finally {
            latency.answered();
        }
        try {
            patch(Api.claimPath(ns, key.substring(key.indexOf('/') + 1)), "{\"metadata\":{\"finalizers\":null}}");
        } catch (KubernetesClientException e) {
            // 404: the in-memory API has no finalizers, the claim is gone already
        }
    }

    @Override
    public void close() {
        claimQueue.close();
        volumeQueue.close();
        protectionQueue.close();
        events.close();
        for (SharedIndexInformer<?> i : new SharedIndexInformer<?>[]{claims, volumes}) {
            if (i != null) {
                i.close();
            }
        }
    }
}
