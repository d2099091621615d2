package dev.provbench.local;

import dev.provbench.csi.CsiServer;
import dev.provbench.csi.Endpoint;
import dev.provbench.kube.RateLimiter;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Everything {@code --local} needs in one JVM: fabric8's in-memory Kubernetes API (CRUD mode) on 127.0.0.1,
 * the mock CSI driver on a real unix socket in a temporary directory, a StorageClass for it, and the stand-in
 * PV controller and provisioner.
 */
public final class LocalCluster implements AutoCloseable {
    public static final String STORAGE_CLASS = "provbench-local";

    private final KubernetesMockServer server;
    private final Config api;
    private final CsiServer csi;
    private final Path dir;
    private final StandInControllers standIn;
    private final KubernetesClient admin;
    private final java.util.concurrent.ScheduledExecutorService eventTtl;

    /**
     * How long the in-memory API keeps events. kube-apiserver keeps them an hour (--event-ttl), indexed;
     * fabric8's CRUD mock server scans every stored object on each request, so events kept that long would
     * slow every request of a run down as they pile up (2–3 per cycle).
     */
    static final long EVENT_TTL_SECONDS = 5;

    /** @param csi the driver to stop at close, or null if it was already serving before */
    private LocalCluster(KubernetesMockServer server, Config api, CsiServer csi, Path dir,
            StandInControllers standIn) {
        this.server = server;
        this.api = api;
        this.csi = csi;
        this.dir = dir;
        this.standIn = standIn;
        // the API's own housekeeping, like the apiserver's TTL: not a client request of any component
        this.admin = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(api).build();
        this.eventTtl = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "local-event-ttl");
            t.setDaemon(true);
            return t;
        });
        eventTtl.scheduleWithFixedDelay(this::expireEvents, EVENT_TTL_SECONDS, EVENT_TTL_SECONDS,
                java.util.concurrent.TimeUnit.SECONDS);
    }

    private void expireEvents() {
        try {
            admin.v1().events().inAnyNamespace().delete();
        } catch (RuntimeException e) {
            // the next round tries again; a run never depends on events
        }
    }

    /**
     * Starts the in-memory API and the stand-ins. If {@code csi} is already serving on a unix socket
     * ({@code provbench serve}), the stand-in provisioner uses that socket; otherwise the driver is started on
     * a socket in a temporary directory and stopped at {@link #close()}.
     */
    public static LocalCluster start(CsiServer csi, String driverName, RateLimiter provisionerLimiter,
            StandInControllers.Reads reads, java.time.Duration apiLatency, MeterRegistry registry) throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(new io.fabric8.mockwebserver.Context(),
                new io.fabric8.mockwebserver.MockWebServer(), new java.util.HashMap<>(),
                new io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        Path dir = Files.createTempDirectory("provbench-local");
        StandInControllers standIn = null;
        CsiServer owned = csi;
        try {
            Config api;
            try (KubernetesClient admin = server.createClient()) {
                api = admin.getConfiguration();
                admin.storage().v1().storageClasses().resource(new StorageClassBuilder()
                        .withNewMetadata().withName(STORAGE_CLASS).endMetadata()
                        .withProvisioner(driverName).withReclaimPolicy("Delete")
                        .withVolumeBindingMode("Immediate").build()).create();
            }
            Path socket;
            if (csi.isServing()) {
                if (!(csi.endpoint() instanceof Endpoint.Unix unix)) {
                    throw new IllegalStateException("a local run needs the driver on a unix socket, but it serves on "
                            + csi.endpoint());
                }
                socket = unix.path();
                owned = null;
            } else {
                socket = dir.resolve("csi.sock");
                csi.start(new Endpoint.Unix(socket));
            }
            standIn = new StandInControllers(api, socket, driverName, STORAGE_CLASS, provisionerLimiter, reads,
                    100, apiLatency, registry);
            standIn.start();
            return new LocalCluster(server, api, owned, dir, standIn);
        } catch (Exception | Error e) {
            if (standIn != null) {
                standIn.close();
            }
            if (owned != null) {
                owned.stop();
            }
            server.destroy();
            deleteQuietly(dir);
            throw e;
        }
    }

    public Config api() {
        return api;
    }

    public StandInControllers standIn() {
        return standIn;
    }

    private static void deleteQuietly(Path dir) {
        try {
            Files.deleteIfExists(dir.resolve("csi.sock"));
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a temp dir left behind is harmless
        }
    }

    @Override
    public void close() {
        eventTtl.shutdownNow();
        admin.close();
        standIn.close();
        if (csi != null) {
            csi.stop();
        }
        server.destroy();
        deleteQuietly(dir);
    }
}
