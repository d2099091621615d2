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
 * {@code --local}. It reproduces their request pattern against the API, each through its own client and
 * rate limiter: the PV controller annotates claims and binds them (unlimited, as a raised
 * kube-controller-manager would be); the provisioner calls the mock driver's CreateVolume and DeleteVolume over
 * the real unix socket and, through its own token bucket (default 5/10 like csi-provisioner), does POST PV + 2
 * POST events per create and PATCH (finalizer) + DELETE PV per delete — reading PVs from a lister, or with a
 * GET first in {@code get} mode (csi-provisioner before sig-storage-lib-external-provisioner PR #83).
 */
public final class StandInControllers implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(StandInControllers.class);
    public static final String ANN_PROVISIONER = "volume.kubernetes.io/storage-provisioner";
    public static final String ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
    public static final String FINALIZER = "external-provisioner.volume.kubernetes.io/finalizer";

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
            RateLimiter provisionerLimiter, boolean getReads, int provisionerThreads,
            io.micrometer.core.instrument.MeterRegistry registry) {
        this.driverName = driverName;
        this.storageClass = storageClass;
        this.getReads = getReads;
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
            patch(pvController, claimPath(c.getMetadata().getNamespace(), c.getMetadata().getName()),
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
            patch(pvController, claimPath(ns, claim), "{\"spec\":{\"volumeName\":\"" + pv + "\"}}");
            patch(pvController, claimPath(ns, claim) + "/status", "{\"status\":{\"phase\":\"Bound\","
                    + "\"capacity\":{\"storage\":\"" + v.getSpec().getCapacity().get("storage") + "\"}}}");
        } catch (KubernetesClientException e) {
            LOG.debugf("bind %s: %s", v.getMetadata().getName(), e.getMessage());
        }
    }

    /** The claim of a bound PV is gone: the PV becomes Released. */
    private void claimDeleted(PersistentVolumeClaim c) {
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
            String ns = c.getMetadata().getNamespace();
            event(ns, c, "Provisioning", "External provisioner is provisioning volume for claim \""
                    + ns + "/" + c.getMetadata().getName() + "\"");
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
            event(ns, c, "ProvisioningSucceeded", "Successfully provisioned volume " + pv);
        } catch (RuntimeException e) {
            LOG.debugf("provision %s: %s", pv, e.getMessage());
            provisioning.remove(pv);
        }
    }

    private void event(String ns, PersistentVolumeClaim c, String reason, String message) {
        Instant now = Instant.now();
        provisioner.v1().events().inNamespace(ns).resource(new EventBuilder()
                .withNewMetadata().withGenerateName(c.getMetadata().getName() + ".").withNamespace(ns).endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder().withKind("PersistentVolumeClaim").withNamespace(ns)
                        .withName(c.getMetadata().getName()).withUid(c.getMetadata().getUid()).build())
                .withReason(reason).withMessage(message).withType("Normal")
                .withFirstTimestamp(now.toString()).withLastTimestamp(now.toString()).withCount(1)
                .withNewSource().withComponent(driverName + "_provbench-local").endSource()
                .build()).create();
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
        channel.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        pvController.close();
        provisioner.close();
    }
}
