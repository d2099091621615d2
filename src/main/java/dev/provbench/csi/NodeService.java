package dev.provbench.csi;

import csi.v1.Csi.NodeExpandVolumeRequest;
import csi.v1.Csi.NodeExpandVolumeResponse;
import csi.v1.Csi.NodeGetCapabilitiesRequest;
import csi.v1.Csi.NodeGetCapabilitiesResponse;
import csi.v1.Csi.NodeGetInfoRequest;
import csi.v1.Csi.NodeGetInfoResponse;
import csi.v1.Csi.NodeGetVolumeStatsRequest;
import csi.v1.Csi.NodeGetVolumeStatsResponse;
import csi.v1.Csi.NodePublishVolumeRequest;
import csi.v1.Csi.NodePublishVolumeResponse;
import csi.v1.Csi.NodeServiceCapability;
import csi.v1.Csi.NodeServiceCapability.RPC.Type;
import csi.v1.Csi.NodeStageVolumeRequest;
import csi.v1.Csi.NodeStageVolumeResponse;
import csi.v1.Csi.NodeUnpublishVolumeRequest;
import csi.v1.Csi.NodeUnpublishVolumeResponse;
import csi.v1.Csi.NodeUnstageVolumeRequest;
import csi.v1.Csi.NodeUnstageVolumeResponse;
import csi.v1.Csi.Topology;
import csi.v1.Csi.VolumeCondition;
import csi.v1.Csi.VolumeUsage;
import csi.v1.NodeGrpc;
import dev.provbench.csi.state.Volume;
import dev.provbench.csi.state.VolumeStore;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

import static dev.provbench.csi.Checks.capability;
import static dev.provbench.csi.Checks.notEmpty;
import static dev.provbench.csi.Checks.notFound;
import static dev.provbench.csi.Checks.require;
import static dev.provbench.csi.Checks.safePath;

/**
 * CSI Node, as a mock: arguments are checked and stage/publish state is tracked in the {@link VolumeStore};
 * nothing is mounted. NodePublishVolume creates the target path (a directory, or a file for block volumes)
 * and NodeUnpublishVolume removes it, as the spec requires of a plugin.
 */
public class NodeService extends NodeGrpc.NodeImplBase {
    private final VolumeStore store;
    private final FaultInjector injector;
    private final NodeGetInfoResponse info;
    private final NodeGetCapabilitiesResponse capabilities;
    private final Set<Type> advertised;
    /** Target paths this driver created (and so may remove). */
    private final Set<String> created = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public NodeService(VolumeStore store, FaultInjector injector, DriverConfig config) {
        this.store = store;
        this.injector = injector;
        NodeGetInfoResponse.Builder i = NodeGetInfoResponse.newBuilder()
                .setNodeId(config.nodeId())
                .setMaxVolumesPerNode(config.limits().maxVolumesPerNode());
        if (config.topology().enabled()) {
            i.setAccessibleTopology(Topology.newBuilder().putSegments(config.topology().key(), config.nodeId()));
        }
        this.info = i.build();
        EnumSet<Type> caps = EnumSet.of(Type.STAGE_UNSTAGE_VOLUME, Type.GET_VOLUME_STATS, Type.VOLUME_CONDITION);
        if (config.controller().expansion()) {
            caps.add(Type.EXPAND_VOLUME);
        }
        this.advertised = Set.copyOf(caps);
        NodeGetCapabilitiesResponse.Builder b = NodeGetCapabilitiesResponse.newBuilder();
        caps.forEach(t -> b.addCapabilities(NodeServiceCapability.newBuilder()
                .setRpc(NodeServiceCapability.RPC.newBuilder().setType(t))));
        this.capabilities = b.build();
    }

    /** NOT_FOUND unless the volume is published or staged at {@code path}. */
    private static void requireAt(Volume v, String path) {
        if (!v.targets().containsKey(path) && !path.equals(v.stagingPath())) {
            throw notFound("volume " + v.id() + " is not published or staged at " + path);
        }
    }

    private Volume existing(String volumeId) {
        return store.volume(volumeId).orElseThrow(() -> notFound("volume " + volumeId + " does not exist"));
    }

    @Override
    public void nodeStageVolume(NodeStageVolumeRequest req, StreamObserver<NodeStageVolumeResponse> observer) {
        injector.respond(csi.v1.NodeGrpc.getNodeStageVolumeMethod(), observer, () -> {
            notEmpty(req.getVolumeId(), "volume_id");
            safePath(req.getStagingTargetPath(), "staging_target_path");
            require(req.hasVolumeCapability(), "volume_capability is required");
            capability(req.getVolumeCapability(), "volume_capability");
            existing(req.getVolumeId());
            store.stage(req.getVolumeId(), req.getStagingTargetPath());
            return NodeStageVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void nodeUnstageVolume(NodeUnstageVolumeRequest req, StreamObserver<NodeUnstageVolumeResponse> observer) {
        injector.respond(csi.v1.NodeGrpc.getNodeUnstageVolumeMethod(), observer, () -> {
            notEmpty(req.getVolumeId(), "volume_id");
            safePath(req.getStagingTargetPath(), "staging_target_path");
            store.unstage(req.getVolumeId(), req.getStagingTargetPath());
            return NodeUnstageVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void nodePublishVolume(NodePublishVolumeRequest req, StreamObserver<NodePublishVolumeResponse> observer) {
        injector.respond(csi.v1.NodeGrpc.getNodePublishVolumeMethod(), observer, () -> {
            notEmpty(req.getVolumeId(), "volume_id");
            safePath(req.getTargetPath(), "target_path");
            require(req.hasVolumeCapability(), "volume_capability is required");
            capability(req.getVolumeCapability(), "volume_capability");
            safePath(req.getStagingTargetPath(), "staging_target_path");
            existing(req.getVolumeId());
            // the filesystem step first, the state after it succeeded; undone if the state refuses
            Path target = Path.of(req.getTargetPath());
            boolean made = createTarget(target, req.getVolumeCapability().hasBlock());
            try {
                store.publish(req.getVolumeId(), req.getTargetPath(), req.getStagingTargetPath(),
                        req.getReadonly(), true);
            } catch (RuntimeException e) {
                if (made) {
                    removeQuietly(target);
                }
                throw e;
            }
            if (made) {
                created.add(req.getTargetPath());
            }
            return NodePublishVolumeResponse.getDefaultInstance();
        });
    }

    /** Creates the target (a file for block, a directory for mount) if absent; true if this call created it. */
    private static boolean createTarget(Path target, boolean block) {
        try {
            if (Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            Files.createDirectories(target.toAbsolutePath().getParent());
            if (block) {
                Files.createFile(target);
            } else {
                Files.createDirectory(target);
            }
            return true;
        } catch (java.nio.file.FileAlreadyExistsException e) {
            return false;
        } catch (IOException e) {
            throw Status.INTERNAL.withDescription("cannot create target path " + target + ": " + e)
                    .asRuntimeException();
        }
    }

    private static void removeQuietly(Path target) {
        try {
            Files.deleteIfExists(target);
        } catch (IOException ignored) {
            // it was ours and empty; if it cannot go, the next publish finds it
        }
    }

    @Override
    public void nodeUnpublishVolume(NodeUnpublishVolumeRequest req,
            StreamObserver<NodeUnpublishVolumeResponse> observer) {
        injector.respond(csi.v1.NodeGrpc.getNodeUnpublishVolumeMethod(), observer, () -> {
            notEmpty(req.getVolumeId(), "volume_id");
            safePath(req.getTargetPath(), "target_path");
            // only what publish created is removed; a path that existed before stays
            if (store.unpublish(req.getVolumeId(), req.getTargetPath()) && created.remove(req.getTargetPath())) {
                try {
                    Files.deleteIfExists(Path.of(req.getTargetPath()));
                } catch (IOException e) {
                    throw Status.INTERNAL.withDescription("cannot remove target path " + req.getTargetPath()
                            + ": " + e).asRuntimeException();
                }
            }
            return NodeUnpublishVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void nodeGetVolumeStats(NodeGetVolumeStatsRequest req,
            StreamObserver<NodeGetVolumeStatsResponse> observer) {
        injector.respond(csi.v1.NodeGrpc.getNodeGetVolumeStatsMethod(), observer, () -> {
            notEmpty(req.getVolumeId(), "volume_id");
            notEmpty(req.getVolumePath(), "volume_path");
            Volume v = existing(req.getVolumeId());
            requireAt(v, req.getVolumePath());
            return NodeGetVolumeStatsResponse.newBuilder()
                    .addUsage(VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.BYTES)
                            .setTotal(v.capacityBytes()).setAvailable(v.capacityBytes()).setUsed(0))
                    .setVolumeCondition(VolumeCondition.newBuilder().setAbnormal(false)
                            .setMessage("volume is healthy"))
                    .build();
        });
    }

    @Override
    public void nodeExpandVolume(NodeExpandVolumeRequest req, StreamObserver<NodeExpandVolumeResponse> observer) {
        injector.respond(csi.v1.NodeGrpc.getNodeExpandVolumeMethod(), observer, () -> {
            if (!advertised.contains(Type.EXPAND_VOLUME)) {
                throw Status.UNIMPLEMENTED.withDescription("volume expansion is disabled").asRuntimeException();
            }
            notEmpty(req.getVolumeId(), "volume_id");
            notEmpty(req.getVolumePath(), "volume_path");
            if (req.hasVolumeCapability()) {
                capability(req.getVolumeCapability(), "volume_capability");
            }
            long required = req.getCapacityRange().getRequiredBytes();
            long limit = req.getCapacityRange().getLimitBytes();
            require(required >= 0 && limit >= 0, "capacity_range cannot be negative");
            require(limit == 0 || required <= limit, "capacity_range.required_bytes exceeds limit_bytes");
            Volume v = existing(req.getVolumeId());
            requireAt(v, req.getVolumePath());
            return NodeExpandVolumeResponse.newBuilder().setCapacityBytes(Math.max(v.capacityBytes(), required))
                    .build();
        });
    }

    @Override
    public void nodeGetCapabilities(NodeGetCapabilitiesRequest req,
            StreamObserver<NodeGetCapabilitiesResponse> observer) {
        injector.respond(csi.v1.NodeGrpc.getNodeGetCapabilitiesMethod(), observer, () -> capabilities);
    }

    @Override
    public void nodeGetInfo(NodeGetInfoRequest req, StreamObserver<NodeGetInfoResponse> observer) {
        injector.respond(csi.v1.NodeGrpc.getNodeGetInfoMethod(), observer, () -> info);
    }
}
