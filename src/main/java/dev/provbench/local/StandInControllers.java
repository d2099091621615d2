package dev.provbench.local;

import csi.v1.ControllerGrpc;
import csi.v1.Csi;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Lister;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import org.jboss.logging.Logger;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The built-in stand-in for kube-controller-manager's PV controller and for csi-provisioner, used by
 * {@code --local}. Each sends, per create/delete cycle and through its own client and rate limiter, the
 * requests the real component sends — measured from kube-apiserver's audit log on {@code hack/local-cluster}
 * (Kubernetes v1.36.3, csi-provisioner v6.3.0, 64 workers; see docs/load.md for the two mixes side by side):
 * <ul>
 * <li>PV controller (unlimited, as a kube-controller-manager at QPS 1000): 11 requests — on a new claim an
 * event and the provisioner annotation; on its PV: PV status Bound, PV bind annotation, claim volumeName,
 * claim status Bound, the event's count; when the claim is deleted: its protection finalizer, a GET and a
 * LIST of pods (the PVC protection controller), PV status Released;
 * <li>provisioner (its own token bucket, default 5/10 like csi-provisioner, and 100 workers like its
 * {@code --worker-threads}): per create an event "Provisioning", CreateVolume over the unix socket, POST PV,
 * an event "ProvisioningSucceeded"; per delete DeleteVolume, PATCH PV (its finalizer), DELETE PV, and on
 * {@link #EXTRA_DELETE_SHARE} of deletes one more DELETE that finds the PV gone (404). Events go as in
 * client-go's recorder: into a queue of {@link #EVENT_QUEUE} (dropped when full) that one thread posts through
 * the same bucket, so under load they get the share of tokens one waiter among many gets — as the real one's
 * do (0.08 to 1.1 events per create measured). It reads PVs from a lister, or with a GET first in {@code get}
 * mode (csi-provisioner before sig-storage-lib-external-provisioner PR #83).
 * </ul>
 * The stand-ins PATCH where kube-controller-manager PUTs: one request either way.
 */
public final class StandInControllers implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(StandInControllers.class);
    public static final String ANN_PROVISIONER = "volume.kubernetes.io/storage-provisioner";
    public static final String ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
    public static final String FINALIZER = "external-provisioner.volume.kubernetes.io/finalizer";
    /** client-go's record.maxQueuedEvents: the broadcaster drops events beyond this many queued. */
    static final int EVENT_QUEUE = 1000;
    /** csi-provisioner v6.3.0 sent 1.375 (at 5/10) to 1.44 (at 50/100) DELETEs per PV, the extra ones 404. */
    static final double EXTRA_DELETE_SHARE = 0.4;
    private final Share extraDeletes = new Share(EXTRA_DELETE_SHARE);
    /** The provisioner's event sink: one thread, a bounded queue, drop when full (client-go's recorder). */
    private final ExecutorService eventSink = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0,
            TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(EVENT_QUEUE), daemon("provisioner-events"),
            new java.util.concurrent.ThreadPoolExecutor.DiscardPolicy());
    private final Map<String, String> eventOfClaim = new ConcurrentHashMap<>();

    /** How the stand-in provisioner reads PVs; JSON and flag values are the lower-case names. */
    public enum Reads {
        @com.fasterxml.jackson.annotation.JsonProperty("lister") LISTER,
        @com.fasterxml.jackson.annotation.JsonProperty("get") GET;

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final String driverName;
    private final String storageClass;
    private final boolean getReads;
    private final KubernetesClient pvController;
    private final KubernetesClient provisioner;
    private final RequestStats pvControllerStats;
    private final RequestStats provisionerStats;
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    private final ManagedChannel channel;
    private final ControllerGrpc.ControllerBlockingStub csi;
    private final ExecutorService pvControllerWorkers = Executors.newFixedThreadPool(8, daemon("pv-controller"));
    private final ExecutorService provisionerWorkers;
    private final Set<String> provisioning = ConcurrentHashMap.newKeySet();
    private final Set<String> deleting = ConcurrentHashMap.newKeySet();
    private SharedIndexInformer<PersistentVolumeClaim> ctrlClaims;
    private SharedIndexInformer<PersistentVolume> ctrlVolumes;
    private SharedIndexInformer<PersistentVolumeClaim> provClaims;
    private SharedIndexInformer<PersistentVolume> provVolumes;
    private Lister<PersistentVolume> provVolumeLister;

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    public StandInControllers(Config api, Path socket, String driverName, String storageClass,
            RateLimiter provisionerLimiter, Reads reads, int provisionerThreads,
            io.micrometer.core.instrument.MeterRegistry registry) {
        this.driverName = driverName;
        this.storageClass = storageClass;
        this.getReads = reads == Reads.GET;
        this.pvControllerStats = new RequestStats("pv-controller", registry);
        this.provisionerStats = new RequestStats("provisioner", registry);
        this.pvController = KubeClients.client(api, RateLimiter.of(-1, 0), pvControllerStats);
        this.provisioner = KubeClients.client(api, provisionerLimiter, provisionerStats);
        this.provisionerWorkers = Executors.newFixedThreadPool(provisionerThreads, daemon("provisioner"));
        this.channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .eventLoopGroup(group).channelType(EpollDomainSocketChannel.class).usePlaintext().build();
        this.csi = ControllerGrpc.newBlockingStub(channel);
    }

    public RequestStats provisionerStats() {
        return provisionerStats;
    }

    public RequestStats pvControllerStats() {
        return pvControllerStats;
    }

    public void start() throws Exception {
        ctrlClaims = pvController.persistentVolumeClaims().inAnyNamespace().runnableInformer(0);
        ctrlClaims.addEventHandler(handler(c -> pvControllerWorkers.execute(() -> annotate(c)),
                c -> pvControllerWorkers.execute(() -> claimDeleted(c))));
        ctrlVolumes = pvController.persistentVolumes().runnableInformer(0);
        ctrlVolumes.addEventHandler(handler(v -> pvControllerWorkers.execute(() -> bind(v)), v -> {
        }));
        provClaims = provisioner.persistentVolumeClaims().inAnyNamespace().runnableInformer(0);
        provClaims.addEventHandler(handler(c -> provisionerWorkers.execute(() -> provision(c)), c -> {
        }));
        provVolumes = provisioner.persistentVolumes().runnableInformer(0);
        provVolumes.addEventHandler(handler(v -> provisionerWorkers.execute(() -> reclaim(v)), v -> {
            provisioning.remove(v.getMetadata().getName());
            deleting.remove(v.getMetadata().getName());
        }));
        provVolumeLister = new Lister<>(provVolumes.getIndexer());
        java.util.concurrent.CompletableFuture.allOf(ctrlClaims.start().toCompletableFuture(),
                ctrlVolumes.start().toCompletableFuture(), provClaims.start().toCompletableFuture(),
                provVolumes.start().toCompletableFuture()).get(60, TimeUnit.SECONDS);
    }

    private interface On<T> {
        void accept(T t);
    }

    private static <T> ResourceEventHandler<T> handler(On<T> changed, On<T> deleted) {
        return new ResourceEventHandler<>() {
            public void onAdd(T obj) {
                changed.accept(obj);
            }

            public void onUpdate(T old, T obj) {
                changed.accept(obj);
            }

            public void onDelete(T obj, boolean unknown) {
                deleted.accept(obj);
            }
        };
    }

    /**
     * One JSON merge PATCH, exactly one request (fabric8's patch() GETs the object first, which the real
     * controllers do not).
     */
    private static void patch(KubernetesClient client, String path, String body) {
        String url = client.getMasterUrl().toString().replaceAll("/$", "") + path;
        try {
            var rsp = client.getHttpClient().sendAsync(client.getHttpClient().newHttpRequestBuilder().uri(url)
                    .method("PATCH", "application/merge-patch+json", body).build(), String.class)
                    .get(30, TimeUnit.SECONDS);
            if (!rsp.isSuccessful()) {
                throw new KubernetesClientException("PATCH " + path + ": HTTP " + rsp.code(), rsp.code(), null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KubernetesClientException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new KubernetesClientException("PATCH " + path + ": " + e.getMessage(), e);
        }
    }

    private static String claimPath(String ns, String name) {
        return "/api/v1/namespaces/" + ns + "/persistentvolumeclaims/" + name;
    }

    private static String volumePath(String name) {
        return "/api/v1/persistentvolumes/" + name;
    }

    private static String pvName(PersistentVolumeClaim c) {
        return "pvc-" + c.getMetadata().getUid();
    }

    // ---------------------------------------------------------- PV controller

    private boolean ours(PersistentVolumeClaim c) {
        return storageClass.equals(c.getSpec().getStorageClassName()) && c.getMetadata().getDeletionTimestamp() == null;
    }

    /** The PV controller hands an unbound claim of our class to the external provisioner. */
    private void annotate(PersistentVolumeClaim c) {
        try {
            if (!ours(c) || c.getMetadata().getAnnotations() != null
                    && c.getMetadata().getAnnotations().containsKey(ANN_PROVISIONER)
                    || c.getSpec().getVolumeName() != null && !c.getSpec().getVolumeName().isEmpty()) {
                return;
            }
            String ns = c.getMetadata().getNamespace();
            eventOfClaim.put(c.getMetadata().getName(), event(pvController, ns, c, "ExternalProvisioning",
                    "Waiting for a volume to be created either by the external provisioner '" + driverName + "'"));
            patch(pvController, claimPath(ns, c.getMetadata().getName()),
                    "{\"metadata\":{\"annotations\":{\"" + ANN_PROVISIONER + "\":\"" + driverName + "\"}}}");
        } catch (KubernetesClientException e) {
            LOG.debugf("annotate %s: %s", c.getMetadata().getName(), e.getMessage());
        }
    }

    /** The PV controller binds a new PV whose claimRef names a claim: PV status, claim volumeName, claim status. */
    private void bind(PersistentVolume v) {
        try {
            if (v.getSpec().getClaimRef() == null || v.getMetadata().getDeletionTimestamp() != null
                    || v.getStatus() != null && v.getStatus().getPhase() != null
                    && !"Pending".equals(v.getStatus().getPhase()) && !"Available".equals(v.getStatus().getPhase())) {
                return;
            }
            String ns = v.getSpec().getClaimRef().getNamespace();
            String claim = v.getSpec().getClaimRef().getName();
            String pv = v.getMetadata().getName();
            patch(pvController, volumePath(pv) + "/status", "{\"status\":{\"phase\":\"Bound\"}}");
            patch(pvController, volumePath(pv), "{\"metadata\":{\"annotations\":{"
                    + "\"pv.kubernetes.io/bound-by-controller\":\"yes\"}}}");
            patch(pvController, claimPath(ns, claim), "{\"spec\":{\"volumeName\":\"" + pv + "\"}}");
            patch(pvController, claimPath(ns, claim) + "/status", "{\"status\":{\"phase\":\"Bound\","
                    + "\"capacity\":{\"storage\":\"" + v.getSpec().getCapacity().get("storage") + "\"}}}");
            String event = eventOfClaim.remove(claim);
            if (event != null) { // the waiting event's count goes up while the claim waits
                patch(pvController, "/api/v1/namespaces/" + ns + "/events/" + event, "{\"count\":2}");
            }
        } catch (KubernetesClientException e) {
            LOG.debugf("bind %s: %s", v.getMetadata().getName(), e.getMessage());
        }
    }

    /**
     * A claim is deleted: the PVC protection controller drops its finalizer after checking no pod uses it
     * (the in-memory API has no finalizers, so the claim is gone already and these answer 404), and the PV
     * of a bound claim becomes Released.
     */
    private void claimDeleted(PersistentVolumeClaim c) {
        String ns = c.getMetadata().getNamespace();
        String name = c.getMetadata().getName();
        eventOfClaim.remove(name);
        try {
            pvController.pods().inNamespace(ns).list();
            patch(pvController, claimPath(ns, name), "{\"metadata\":{\"finalizers\":null}}");
        } catch (KubernetesClientException e) {
            LOG.debugf("unprotect %s: %s", name, e.getMessage());
        }
        pvController.persistentVolumeClaims().inNamespace(ns).withName(name).get();
        String pv = c.getSpec().getVolumeName();
        if (pv == null || pv.isEmpty()) {
            return;
        }
        try {
            patch(pvController, volumePath(pv) + "/status", "{\"status\":{\"phase\":\"Released\"}}");
        } catch (KubernetesClientException e) {
            LOG.debugf("release %s: %s", pv, e.getMessage());
        }
    }

    // ------------------------------------------------------------ provisioner

    private void provision(PersistentVolumeClaim c) {
        Map<String, String> ann = c.getMetadata().getAnnotations();
        if (ann == null || !driverName.equals(ann.get(ANN_PROVISIONER)) || !ours(c)
                || c.getSpec().getVolumeName() != null && !c.getSpec().getVolumeName().isEmpty()) {
            return;
        }
        String pv = pvName(c);
        if (!provisioning.add(pv)) {
            return;
        }
        try {
            boolean exists = getReads ? provisioner.persistentVolumes().withName(pv).get() != null
                    : provVolumeLister.get(pv) != null;
            if (exists) {
                return;
            }
            String ns = c.getMetadata().getNamespace();
            recordEvent(ns, c, "Provisioning", "External provisioner is provisioning volume for claim \""
                    + ns + "/" + c.getMetadata().getName() + "\"");
            Quantity size = c.getSpec().getResources().getRequests().get("storage");
            long bytes = Quantity.getAmountInBytes(size).longValue();
            Csi.Volume vol = csi.withDeadlineAfter(10, TimeUnit.SECONDS).createVolume(Csi.CreateVolumeRequest
                    .newBuilder().setName(pv)
                    .setCapacityRange(Csi.CapacityRange.newBuilder().setRequiredBytes(bytes))
                    .addVolumeCapabilities(Csi.VolumeCapability.newBuilder()
                            .setMount(Csi.VolumeCapability.MountVolume.getDefaultInstance())
                            .setAccessMode(Csi.VolumeCapability.AccessMode.newBuilder()
                                    .setMode(Csi.VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER)))
                    .build()).getVolume();
            provisioner.persistentVolumes().resource(new PersistentVolumeBuilder()
                    .withNewMetadata().withName(pv).addToAnnotations(ANN_PROVISIONED_BY, driverName)
                    .addToFinalizers(FINALIZER).endMetadata()
                    .withNewSpec().withStorageClassName(storageClass)
                    .withAccessModes(c.getSpec().getAccessModes())
                    .addToCapacity("storage", new Quantity(Long.toString(vol.getCapacityBytes())))
                    .withPersistentVolumeReclaimPolicy("Delete")
                    .withClaimRef(new ObjectReferenceBuilder().withKind("PersistentVolumeClaim").withApiVersion("v1")
                            .withNamespace(ns).withName(c.getMetadata().getName())
                            .withUid(c.getMetadata().getUid()).build())
                    .withNewCsi().withDriver(driverName).withVolumeHandle(vol.getVolumeId()).endCsi()
                    .endSpec()
                    .withNewStatus().withPhase("Pending").endStatus()
                    .build()).create();
            recordEvent(ns, c, "ProvisioningSucceeded", "Successfully provisioned volume " + pv);
        } catch (RuntimeException e) {
            LOG.debugf("provision %s: %s", pv, e.getMessage());
            provisioning.remove(pv);
        }
    }

    /** Queues a provisioner event for the sink thread (dropped if the queue is full). */
    private void recordEvent(String ns, PersistentVolumeClaim c, String reason, String message) {
        eventSink.execute(() -> {
            try {
                event(provisioner, ns, c, reason, message);
            } catch (RuntimeException e) {
                LOG.debugf("event %s: %s", reason, e.getMessage());
            }
        });
    }

    /** Records an event about a claim; returns its name. */
    private String event(KubernetesClient client, String ns, PersistentVolumeClaim c, String reason, String message) {
        Instant now = Instant.now();
        return client.v1().events().inNamespace(ns).resource(new EventBuilder()
                .withNewMetadata().withGenerateName(c.getMetadata().getName() + ".").withNamespace(ns).endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder().withKind("PersistentVolumeClaim").withNamespace(ns)
                        .withName(c.getMetadata().getName()).withUid(c.getMetadata().getUid()).build())
                .withReason(reason).withMessage(message).withType("Normal")
                .withFirstTimestamp(now.toString()).withLastTimestamp(now.toString()).withCount(1)
                .withNewSource().withComponent(driverName + "_provbench-local").endSource()
                .build()).create().getMetadata().getName();
    }

    /** A Released PV of ours: DeleteVolume, then drop the finalizer and delete the PV object. */
    private void reclaim(PersistentVolume v) {
        if (v.getStatus() == null || !"Released".equals(v.getStatus().getPhase())
                || !driverName.equals(v.getMetadata().getAnnotations() == null ? null
                : v.getMetadata().getAnnotations().get(ANN_PROVISIONED_BY))) {
            return;
        }
        String pv = v.getMetadata().getName();
        if (!deleting.add(pv)) {
            return;
        }
        try {
            if (getReads && provisioner.persistentVolumes().withName(pv).get() == null) {
                return;
            }
            csi.withDeadlineAfter(10, TimeUnit.SECONDS).deleteVolume(Csi.DeleteVolumeRequest.newBuilder()
                    .setVolumeId(v.getSpec().getCsi().getVolumeHandle()).build());
            patch(provisioner, volumePath(pv), "{\"metadata\":{\"finalizers\":null}}");
            provisioner.persistentVolumes().withName(pv).delete();
            if (extraDeletes.next()) { // csi-provisioner's retry that finds the PV gone
                provisioner.persistentVolumes().withName(pv).delete();
            }
        } catch (RuntimeException e) {
            LOG.debugf("reclaim %s: %s", pv, e.getMessage());
            deleting.remove(pv);
        }
    }

    @Override
    public void close() {
        for (SharedIndexInformer<?> i : new SharedIndexInformer<?>[]{ctrlClaims, ctrlVolumes, provClaims, provVolumes}) {
            if (i != null) {
                i.close();
            }
        }
        pvControllerWorkers.shutdownNow();
        provisionerWorkers.shutdownNow();
        eventSink.shutdownNow();
        channel.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        pvController.close();
        provisioner.close();
    }
}
