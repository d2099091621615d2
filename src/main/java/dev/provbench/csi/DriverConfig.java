package dev.provbench.csi;

import dev.provbench.util.Quantities;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.util.Map;
import java.util.Optional;

/** Every option of the mock CSI driver, in one place ({@code provbench.driver.*}). */
@ConfigMapping(prefix = "provbench.driver")
public interface DriverConfig {

    /** CSI endpoint; the CSI_ENDPOINT environment variable, as the spec says, else /csi/csi.sock. */
    @WithDefault("${CSI_ENDPOINT:unix:///csi/csi.sock}")
    String endpoint();

    /** Driver name returned by GetPluginInfo; a StorageClass's provisioner must equal it. */
    @WithDefault("mock.csi.provbench.dev")
    String name();

    /** Vendor version returned by GetPluginInfo (the build's version unless set). */
    Optional<String> vendorVersion();

    /** Node ID returned by NodeGetInfo and accepted by ControllerPublishVolume. */
    @WithDefault("${NODE_NAME:provbench-node}")
    String nodeId();

    /**
     * Mode of the unix socket, set right after it is bound (octal): owner and group may connect — the
     * csi-provisioner container runs with the driver's user or group — others may not, whatever the umask.
     */
    @WithDefault("0660")
    String socketMode();

    /** Netty worker threads for the gRPC server; 0 = Netty's default (2 x cores). */
    @WithDefault("0")
    int workerThreads();

    Topology topology();

    Controller controller();

    Limits limits();

    /** Latency and fault injection per CSI method name (e.g. CreateVolume), or "*" for every method. */
    @WithName("inject")
    Map<String, Injection> injection();

    interface Topology {
        /** Advertise VOLUME_ACCESSIBILITY_CONSTRAINTS (csi-provisioner then needs CSINode objects). */
        @WithDefault("false")
        boolean enabled();

        @WithDefault("topology.provbench.dev/node")
        String key();
    }

    interface Controller {
        /** Advertise PUBLISH_UNPUBLISH_VOLUME (needs an external-attacher in a cluster). */
        @WithDefault("false")
        boolean publish();

        /** Advertise CREATE_DELETE_SNAPSHOT and LIST_SNAPSHOTS. */
        @WithDefault("true")
        boolean snapshots();

        /** Advertise EXPAND_VOLUME (controller) and EXPAND_VOLUME (node), plugin ONLINE expansion. */
        @WithDefault("true")
        boolean expansion();

        /** Advertise CLONE_VOLUME. */
        @WithDefault("true")
        boolean clone();

        /** Advertise MODIFY_VOLUME (ControllerModifyVolume, VolumeAttributesClass). */
        @WithDefault("false")
        boolean modify();

        /** Mutable parameter keys the driver accepts; others get INVALID_ARGUMENT. */
        @WithDefault("iops,throughput")
        java.util.List<String> mutableParameters();
    }

    interface Limits {
        /** Size of a volume created without a capacity range. */
        @WithDefault("1Gi")
        @WithConverter(Quantities.Converter.class)
        Long defaultVolumeSize();

        /** Largest volume; larger requests get OUT_OF_RANGE. 0 = unlimited. */
        @WithDefault("1Pi")
        @WithConverter(Quantities.Converter.class)
        Long maxVolumeSize();

        /** Capacity of the whole backend; past it CreateVolume gets RESOURCE_EXHAUSTED. 0 = unlimited. */
        @WithDefault("0")
        @WithConverter(Quantities.Converter.class)
        Long totalCapacity();

        /**
         * Most volumes that may exist at once; past it CreateVolume gets RESOURCE_EXHAUSTED. 0 = unlimited.
         * Unset: what the heap holds ({@link dev.provbench.csi.state.HeapBudget}), logged at start.
         */
        Optional<Long> maxVolumes();

        /**
         * Most bytes of names and parameters the volumes and snapshots may hold together (each string and
         * parameter with its heap overhead); past it RESOURCE_EXHAUSTED. 0 = unlimited. Unset: a share of
         * the heap ({@link dev.provbench.csi.state.HeapBudget}), logged at start.
         */
        @WithConverter(Quantities.Converter.class)
        Optional<Long> maxHeldBytes();

        /** Most snapshots that may exist at once. 0 = unlimited. */
        @WithDefault("100000")
        long maxSnapshots();

        /** NodeGetInfo max_volumes_per_node and the ControllerPublish attach limit. 0 = unlimited. */
        @WithDefault("0")
        long maxVolumesPerNode();
    }

    interface Injection {
        /** Latency before the method runs: "50ms", "uniform(10ms,100ms)", "exp(20ms)", "normal(50ms,10ms)". */
        Optional<String> latency();

        /** Fraction of calls (0..1) that fail with {@link #errorCode()}. */
        @WithDefault("0")
        double errorRate();

        @WithDefault("UNAVAILABLE")
        String errorCode();
    }
}
