package dev.provbench.csi;

import dev.provbench.csi.state.Limits;
import dev.provbench.csi.state.VolumeStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import java.time.Clock;

/** Wires the plain state classes into CDI. */
@ApplicationScoped
public class DriverBeans {

    @Produces
    @ApplicationScoped
    Clock clock() {
        return Clock.systemUTC();
    }

    @Produces
    @ApplicationScoped
    VolumeStore volumeStore(DriverConfig config, Clock clock, MeterRegistry registry) {
        DriverConfig.Limits l = config.limits();
        VolumeStore store = new VolumeStore(new Limits(l.defaultVolumeSize(), l.maxVolumeSize(), l.totalCapacity(),
                l.maxVolumes(), l.maxSnapshots(), l.maxVolumesPerNode()), clock);
        Gauge.builder("provbench_csi_volumes", store, VolumeStore::volumeCount)
                .description("Volumes that exist in the mock driver").register(registry);
        Gauge.builder("provbench_csi_volume_bytes", store, VolumeStore::usedBytes)
                .description("Capacity held by the mock driver's volumes").baseUnit("bytes").register(registry);
        Gauge.builder("provbench_csi_snapshots", store, VolumeStore::snapshotCount)
                .description("Snapshots that exist in the mock driver").register(registry);
        return store;
    }
}
