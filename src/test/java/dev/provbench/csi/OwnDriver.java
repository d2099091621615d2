package dev.provbench.csi;

import dev.provbench.csi.state.VolumeStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * A driver of a test's own: the application's configuration, but a fresh store, injector and meters, served on a
 * fresh unix socket. A test that asserts on counts, capacity or limits uses one, so nothing else in the JVM (a
 * local run, another test) can move what it reads. Close it in a try-with-resources.
 */
public final class OwnDriver implements AutoCloseable {
    public final VolumeStore store;
    public final FaultInjector injector;
    public final CsiServer server;
    public final CsiClient csi;
    private final Path dir;

    private OwnDriver(VolumeStore store, FaultInjector injector, CsiServer server, CsiClient csi, Path dir) {
        this.store = store;
        this.injector = injector;
        this.server = server;
        this.csi = csi;
        this.dir = dir;
    }

    /** Built and serving; {@code config} is the application's {@link DriverConfig}. */
    public static OwnDriver start(DriverConfig config) throws IOException {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        VolumeStore store = DriverBeans.store(config, Clock.systemUTC(), meters);
        FaultInjector injector = new FaultInjector(config, meters);
        CsiServer server = new CsiServer(store, injector, new CallMetrics(meters), config, "test");
        Path dir = Files.createTempDirectory("pb-own-driver");
        try {
            server.start(new Endpoint.Unix(dir.resolve("csi.sock")));
        } catch (IOException | RuntimeException e) {
            injector.stop();
            Files.deleteIfExists(dir);
            throw e;
        }
        return new OwnDriver(store, injector, server, new CsiClient(dir.resolve("csi.sock")), dir);
    }

    /** Not serving: for a caller that serves it itself (the local cluster starts it on a socket of its own). */
    public static OwnDriver unstarted(DriverConfig config) {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        VolumeStore store = DriverBeans.store(config, Clock.systemUTC(), meters);
        FaultInjector injector = new FaultInjector(config, meters);
        return new OwnDriver(store, injector, new CsiServer(store, injector, new CallMetrics(meters), config, "test"),
                null, null);
    }

    /** The socket it serves (null when {@link #unstarted}). */
    public Path socket() {
        return dir == null ? null : dir.resolve("csi.sock");
    }

    @Override
    public void close() throws Exception {
        try {
            if (csi != null) {
                csi.close();
            }
        } finally {
            server.stop();
            injector.stop();
            if (dir != null) {
                Files.deleteIfExists(dir.resolve("csi.sock"));
                Files.deleteIfExists(dir);
            }
        }
    }
}
