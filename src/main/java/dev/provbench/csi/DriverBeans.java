package dev.provbench.csi;

import dev.provbench.csi.state.HeapBudget;
import dev.provbench.csi.state.Limits;
import dev.provbench.util.Quantities;
import dev.provbench.csi.state.VolumeStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import io.quarkus.runtime.ShutdownEvent;

import java.time.Clock;

/** Wires the plain state classes into CDI. */
@ApplicationScoped
public class DriverBeans {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(DriverBeans.class);

    @Produces
    @ApplicationScoped
    Clock clock() {
        return Clock.systemUTC();
    }

    @Produces
    @ApplicationScoped
    VolumeStore volumeStore(DriverConfig config, Clock clock, MeterRegistry registry) {
        EarlyDriver.Parts early = EarlyDriver.parts();
        return early != null ? early.store() : store(config, clock, registry);
    }

    @Produces
    @Singleton
    FaultInjector faultInjector(DriverConfig config, MeterRegistry registry) {
        EarlyDriver.Parts early = EarlyDriver.parts();
        return injector = early != null ? early.injector() : new FaultInjector(config, registry);
    }

    @Produces
    @Singleton
    CallMetrics callMetrics(MeterRegistry registry) {
        EarlyDriver.Parts early = EarlyDriver.parts();
        return early != null ? early.metrics() : new CallMetrics(registry);
    }

    @Produces
    @Singleton
    CsiServer csiServer(VolumeStore store, FaultInjector injector, CallMetrics metrics, DriverConfig config) {
        EarlyDriver.Parts early = EarlyDriver.parts();
        return server = early != null ? early.server()
                : new CsiServer(store, injector, metrics, config, dev.provbench.util.BuildVersion.get());
    }

    private volatile CsiServer server;
    private volatile FaultInjector injector;

    /**
     * Whether this process's driver serves its socket. Asking builds nothing: when no command made the driver (a
     * {@code run} against a cluster), the answer is false without making it.
     */
    public boolean serving() {
        CsiServer s = server;
        return s != null && s.isServing();
    }

    /** Stops what was built (a command that never used the driver built none of it). */
    void stop(@Observes ShutdownEvent event) {
        if (server != null) {
            server.stop();
        }
        if (injector != null) {
            injector.stop();
        }
    }

    /** The store with its limits (logged) and gauges: the one definition, for the bean and {@link EarlyDriver}. */
    static VolumeStore store(DriverConfig config, Clock clock, MeterRegistry registry) {
        DriverConfig.Limits l = config.limits();
        long heap = Runtime.getRuntime().maxMemory();
        long maxVolumes = l.maxVolumes().orElseGet(() -> HeapBudget.maxVolumes(heap));
        long maxHeld = l.maxHeldBytes().orElseGet(() -> HeapBudget.maxHeldBytes(heap));
        VolumeStore store = new VolumeStore(new Limits(l.defaultVolumeSize(), l.maxVolumeSize(), l.totalCapacity(),
                maxVolumes, l.maxSnapshots(), l.maxVolumesPerNode(), maxHeld), clock);
        LOG.infof("volume limits: %d volumes%s, %s of names and parameters%s (max heap %s)", maxVolumes,
                l.maxVolumes().isPresent() ? "" : " (from the heap at " + HeapBudget.BYTES_PER_VOLUME + " B each)",
                Quantities.format(maxHeld), l.maxHeldBytes().isPresent() ? "" : " (from the heap)",
                Quantities.format(heap));
        Gauge.builder("provbench_csi_volumes", store, VolumeStore::volumeCount)
                .description("Volumes that exist in the mock driver").register(registry);
        Gauge.builder("provbench_csi_volume_bytes", store, VolumeStore::usedBytes)
                .description("Capacity held by the mock driver's volumes").baseUnit("bytes").register(registry);
        Gauge.builder("provbench_csi_held_bytes", store, VolumeStore::heldBytes)
                .description("Bytes of names and parameters the mock driver's volumes and snapshots hold "
                        + "(with heap overhead), against limits.max-held-bytes").baseUnit("bytes").register(registry);
        Gauge.builder("provbench_csi_snapshots", store, VolumeStore::snapshotCount)
                .description("Snapshots that exist in the mock driver").register(registry);
        return store;
    }
}
