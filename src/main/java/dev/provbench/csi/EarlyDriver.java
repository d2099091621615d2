package dev.provbench.csi;

import dev.provbench.csi.state.VolumeStore;
import dev.provbench.util.BuildVersion;
import io.micrometer.core.instrument.Metrics;

import java.io.IOException;
import java.time.Clock;

/**
 * {@code provbench driver} serves CSI before Quarkus starts: the driver's parts are plain objects, so they are built
 * from the same configuration ({@code provbench.driver.*} from system properties, the environment,
 * {@code application.properties} and {@code config/application.properties}) and the socket answers while Quarkus
 * boots its HTTP side (health, metrics, the control API). {@link DriverBeans} then hands these very objects to CDI,
 * so the API changes what the socket serves. Meters go to Micrometer's global registry, which Quarkus' Prometheus
 * registry joins (and takes every meter registered so far).
 */
public final class EarlyDriver {
    /** What was built and started, or null when the driver was not started early. */
    public record Parts(DriverConfig config, VolumeStore store, FaultInjector injector, CallMetrics metrics,
                        CsiServer server) {
    }

    private static volatile Parts parts;

    private EarlyDriver() {
    }

    public static Parts parts() {
        return parts;
    }

    /** {@code provbench.driver.*} as Quarkus will read it, without Quarkus. */
    public static DriverConfig config() {
        return dev.provbench.util.EarlyConfig.mapping(DriverConfig.class);
    }

    /** Builds the driver's parts and serves {@code where}; returns the endpoint bound. */
    public static synchronized Endpoint start(DriverConfig config, Endpoint where) throws IOException {
        if (parts != null) {
            throw new IllegalStateException("the driver was started already");
        }
        var registry = Metrics.globalRegistry;
        VolumeStore store = DriverBeans.store(config, Clock.systemUTC(), registry);
        FaultInjector injector = new FaultInjector(config, registry);
        CallMetrics metrics = new CallMetrics(registry);
        CsiServer server = new CsiServer(store, injector, metrics, config, BuildVersion.get());
        // Quarkus stops it at shutdown (DriverBeans); if Quarkus never starts (its port is taken, say), the JVM's
        // exit still stops it and removes the socket file. Registered before the socket exists: a stop signal that
        // comes as soon as the file appears (cli-check sends one) exits the JVM before start returns, and the hook's
        // stop waits for start to finish (both hold the server's lock), then removes the file. After a failed start
        // it stops nothing that is not stopped already (both stops are no-ops then).
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop();
            injector.stop();
        }, "provbench-early-driver-stop"));
        Endpoint bound;
        try {
            bound = server.start(where);
        } catch (IOException | RuntimeException e) {
            injector.stop();
            throw e;
        }
        parts = new Parts(config, store, injector, metrics, server);
        return bound;
    }
}
