package dev.provbench.local;

import csi.v1.ControllerGrpc;
import csi.v1.Csi;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The built-in stand-ins for kube-controller-manager's PV controller ({@link PvControllerStandIn}) and for
 * csi-provisioner, used by {@code --local}. Each sends, per create/delete cycle and through its own client and
 * rate limiter, the requests the real component sends — measured from kube-apiserver's audit log on
 * {@code hack/local-cluster} (Kubernetes v1.36.3, csi-provisioner v6.3.0, 64 workers; see docs/load.md for the
 * two mixes side by side). The provisioner (its own token bucket, default 5/10 like csi-provisioner, and 100
 * workers like its {@code --worker-threads}) sends per create an event "Provisioning", CreateVolume over the
 * unix socket, POST PV, an event "ProvisioningSucceeded"; per delete DeleteVolume, PATCH PV (its finalizer),
 * DELETE PV, and on {@link #EXTRA_DELETE_SHARE} of deletes one more DELETE that finds the PV gone (404). Its
 * events go through an {@link EventSink} on the same bucket, so under load they get the share of tokens one
 * waiter among many gets — as the real one's do (0.08 to 1.1 events per create measured). It reads PVs from a
 * lister, or with a GET first in {@code get} mode (csi-provisioner before sig-storage-lib-external-provisioner
 * PR #83).
 */
public final class StandInControllers implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(StandInControllers.class);
    public static final String ANN_PROVISIONER = "volume.kubernetes.io/storage-provisioner";
    public static final String ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
    public static final String FINALIZER = "external-provisioner.volume.kubernetes.io/finalizer";
    /**
     * The share of PVs csi-provisioner v6.3.0 DELETEs a second time, answered 404: its volume worker takes the key
     * the first DELETE's watch event re-queued, and its informer has not yet seen the PV go (kube-apiserver's
     * audit log on {@code hack/local-cluster}, 2026-12-04: 0.52 of 329 PVs over a whole run and 0.49 in a 180 s
     * window at 5/10, 0.43 at 50/100).
     */
    static final double EXTRA_DELETE_SHARE = 0.5;
    private final Share extraDeletes = new Share(EXTRA_DELETE_SHARE);

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
    private final ApiLatency latency;
    private final KubernetesClient pvControllerClient;
    private final PvControllerStandIn pvController;
    private final EventSink events;
    private final KubernetesClient provisioner;
    private final RequestStats pvControllerStats;
    private final RequestStats provisionerStats;
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    private final ManagedChannel channel;
    private final ControllerGrpc.ControllerBlockingStub csi;
    private final ExecutorService provisionerWorkers;
    private final Set<String> provisioning = ConcurrentHashMap.newKeySet();
    private final Set<String> deleting = ConcurrentHashMap.newKeySet();
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
            RateLimiter provisionerLimiter, Reads reads, int provisionerThreads, java.time.Duration apiLatency,
            io.micrometer.core.instrument.MeterRegistry registry) {
        this.latency = new ApiLatency(apiLatency);
        this.driverName = driverName;
        this.storageClass = storageClass;
        this.getReads = reads == Reads.GET;
        this.pvControllerStats = new RequestStats("pv-controller", registry);
        this.provisionerStats = new RequestStats("provisioner", registry);
        this.pvControllerClient = KubeClients.client(api, RateLimiter.of(-1, 0), pvControllerStats);
        this.pvController = new PvControllerStandIn(pvControllerClient, driverName, storageClass, latency);
        this.provisioner = KubeClients.client(api, provisionerLimiter, provisionerStats);
        this.events = new EventSink("provisioner-events", provisioner, driverName + "_provbench-local", latency);
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
        provClaims = provisioner.persistentVolumeClaims().inAnyNamespace().runnableInformer(0);
        provClaims.addEventHandler(handler(c -> provisionerWorkers.execute(() -> provision(c)), c -> {
        }));
        provVolumes = provisioner.persistentVolumes().runnableInformer(0);
        provVolumes.addEventHandler(handler(v -> provisionerWorkers.execute(() -> reclaim(v)), v -> {
            provisioning.remove(v.getMetadata().getName());
            deleting.remove(v.getMetadata().getName());
        }));
        provVolumeLister = new Lister<>(provVolumes.getIndexer());
        java.util.concurrent.CompletableFuture.allOf(pvController.start(), provClaims.start().toCompletableFuture(),
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

    private boolean ours(PersistentVolumeClaim c) {
        return storageClass.equals(c.getSpec().getStorageClassName()) && c.getMetadata().getDeletionTimestamp() == null;
    }

    private static String pvName(PersistentVolumeClaim c) {
        return "pvc-" + c.getMetadata().getUid();
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
            boolean exists = getReads ? latency.send(() -> provisioner.persistentVolumes().withName(pv).get()) != null
                    : provVolumeLister.get(pv) != null;
            if (exists) {
                return;
            }
            String ns = c.getMetadata().getNamespace();
            events.record(c, "Provisioning", "External provisioner is provisioning volume for claim \""
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
            PersistentVolume made = new PersistentVolumeBuilder()
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
                    .build();
            latency.send(() -> provisioner.persistentVolumes().resource(made).create());
            events.record(c, "ProvisioningSucceeded", "Successfully provisioned volume " + pv);
        } catch (RuntimeException e) {
            LOG.debugf("provision %s: %s", pv, e.getMessage());
            provisioning.remove(pv);
        }
    }

    /**
     * A Released PV of ours whose policy is Delete: DeleteVolume, then drop the finalizer and delete the PV object
     * (csi-provisioner's {@code shouldDelete}: a Retain PV is left to whoever made it).
     */
    private void reclaim(PersistentVolume v) {
        if (v.getStatus() == null || !"Released".equals(v.getStatus().getPhase())
                || "Retain".equals(v.getSpec().getPersistentVolumeReclaimPolicy())
                || !driverName.equals(v.getMetadata().getAnnotations() == null ? null
                : v.getMetadata().getAnnotations().get(ANN_PROVISIONED_BY))) {
            return;
        }
        String pv = v.getMetadata().getName();
        if (!deleting.add(pv)) {
            return;
        }
        try {
            if (getReads && latency.send(() -> provisioner.persistentVolumes().withName(pv).get()) == null) {
                return;
            }
            csi.withDeadlineAfter(10, TimeUnit.SECONDS).deleteVolume(Csi.DeleteVolumeRequest.newBuilder()
                    .setVolumeId(v.getSpec().getCsi().getVolumeHandle()).build());
            latency.send(() -> {
                Api.patch(provisioner, Api.volumePath(pv), "{\"metadata\":{\"finalizers\":null}}");
                return null;
            });
            latency.send(() -> provisioner.persistentVolumes().withName(pv).delete());
            if (extraDeletes.next()) { // csi-provisioner's retry that finds the PV gone
                latency.send(() -> provisioner.persistentVolumes().withName(pv).delete());
            }
        } catch (RuntimeException e) {
            LOG.debugf("reclaim %s: %s", pv, e.getMessage());
            deleting.remove(pv);
        }
    }

    @Override
    public void close() {
        for (SharedIndexInformer<?> i : new SharedIndexInformer<?>[]{provClaims, provVolumes}) {
            if (i != null) {
                i.close();
            }
        }
        pvController.close();
        provisionerWorkers.shutdownNow();
        events.close();
        channel.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        pvControllerClient.close();
        provisioner.close();
    }
}
