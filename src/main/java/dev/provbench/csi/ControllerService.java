package dev.provbench.csi;

import com.google.protobuf.Int64Value;
import com.google.protobuf.Timestamp;
import csi.v1.ControllerGrpc;
import csi.v1.Csi.ControllerExpandVolumeRequest;
import csi.v1.Csi.ControllerExpandVolumeResponse;
import csi.v1.Csi.ControllerGetCapabilitiesRequest;
import csi.v1.Csi.ControllerGetCapabilitiesResponse;
import csi.v1.Csi.ControllerGetVolumeRequest;
import csi.v1.Csi.ControllerGetVolumeResponse;
import csi.v1.Csi.ControllerModifyVolumeRequest;
import csi.v1.Csi.ControllerModifyVolumeResponse;
import csi.v1.Csi.ControllerPublishVolumeRequest;
import csi.v1.Csi.ControllerPublishVolumeResponse;
import csi.v1.Csi.ControllerServiceCapability;
import csi.v1.Csi.ControllerServiceCapability.RPC.Type;
import csi.v1.Csi.ControllerUnpublishVolumeRequest;
import csi.v1.Csi.ControllerUnpublishVolumeResponse;
import csi.v1.Csi.CreateSnapshotRequest;
import csi.v1.Csi.CreateSnapshotResponse;
import csi.v1.Csi.CreateVolumeRequest;
import csi.v1.Csi.CreateVolumeResponse;
import csi.v1.Csi.DeleteSnapshotRequest;
import csi.v1.Csi.DeleteSnapshotResponse;
import csi.v1.Csi.DeleteVolumeRequest;
import csi.v1.Csi.DeleteVolumeResponse;
import csi.v1.Csi.GetCapacityRequest;
import csi.v1.Csi.GetCapacityResponse;
import csi.v1.Csi.GetSnapshotRequest;
import csi.v1.Csi.GetSnapshotResponse;
import csi.v1.Csi.ListSnapshotsRequest;
import csi.v1.Csi.ListSnapshotsResponse;
import csi.v1.Csi.ListVolumesRequest;
import csi.v1.Csi.ListVolumesResponse;
import csi.v1.Csi.Topology;
import csi.v1.Csi.TopologyRequirement;
import csi.v1.Csi.ValidateVolumeCapabilitiesRequest;
import csi.v1.Csi.ValidateVolumeCapabilitiesResponse;
import csi.v1.Csi.VolumeCondition;
import csi.v1.Csi.VolumeContentSource;
import dev.provbench.csi.state.Page;
import dev.provbench.csi.state.Snapshot;
import dev.provbench.csi.state.Source;
import dev.provbench.csi.state.Volume;
import dev.provbench.csi.state.VolumeStore;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static dev.provbench.csi.Checks.capabilities;
import static dev.provbench.csi.Checks.capability;
import static dev.provbench.csi.Checks.invalid;
import static dev.provbench.csi.Checks.notEmpty;
import static dev.provbench.csi.Checks.notFound;
import static dev.provbench.csi.Checks.require;

/**
 * CSI Controller: every valid request succeeds against the in-memory {@link VolumeStore}; every invalid one
 * gets the code the CSI spec (and csi-sanity) requires.
 */
public class ControllerService extends ControllerGrpc.ControllerImplBase {
    private final VolumeStore store;
    private final FaultInjector injector;
    private final DriverConfig config;
    private final Set<Type> advertised;
    private final ControllerGetCapabilitiesResponse capabilitiesResponse;
    private final Topology nodeTopology;

    public ControllerService(VolumeStore store, FaultInjector injector, DriverConfig config) {
        this.store = store;
        this.injector = injector;
        this.config = config;
        EnumSet<Type> caps = EnumSet.of(Type.CREATE_DELETE_VOLUME, Type.LIST_VOLUMES, Type.GET_CAPACITY,
                Type.GET_VOLUME, Type.VOLUME_CONDITION);
        if (config.controller().publish()) {
            caps.addAll(List.of(Type.PUBLISH_UNPUBLISH_VOLUME, Type.PUBLISH_READONLY,
                    Type.LIST_VOLUMES_PUBLISHED_NODES));
        }
        if (config.controller().snapshots()) {
            caps.addAll(List.of(Type.CREATE_DELETE_SNAPSHOT, Type.LIST_SNAPSHOTS));
        }
        if (config.controller().expansion()) {
            caps.add(Type.EXPAND_VOLUME);
        }
        if (config.controller().clone()) {
            caps.add(Type.CLONE_VOLUME);
        }
        if (config.controller().modify()) {
            caps.add(Type.MODIFY_VOLUME);
        }
        this.advertised = Set.copyOf(caps);
        ControllerGetCapabilitiesResponse.Builder b = ControllerGetCapabilitiesResponse.newBuilder();
        caps.forEach(t -> b.addCapabilities(ControllerServiceCapability.newBuilder()
                .setRpc(ControllerServiceCapability.RPC.newBuilder().setType(t))));
        this.capabilitiesResponse = b.build();
        this.nodeTopology = Topology.newBuilder().putSegments(config.topology().key(), config.nodeId()).build();
    }

    private void requireCapability(Type type, String method) {
        if (!advertised.contains(type)) {
            throw Status.UNIMPLEMENTED.withDescription(method + " needs the " + type
                    + " capability, which this driver is configured not to offer").asRuntimeException();
        }
    }

    // ---------------------------------------------------------------- volumes

    @Override
    public void createVolume(CreateVolumeRequest req, StreamObserver<CreateVolumeResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getCreateVolumeMethod(), observer, () -> {
            notEmpty(req.getName(), "name");
            // what the store keeps per volume is bounded by the spec's size limits
            Checks.specSize(req.getName(), "name");
            Checks.specSize(req.getParametersMap(), "parameters");
            Checks.specSize(req.getSecretsMap(), "secrets");
            Checks.specSize(req.getMutableParamsMap(), "mutable_parameters");
            capabilities(req.getVolumeCapabilitiesList(), "volume_capabilities");
            long required = req.getCapacityRange().getRequiredBytes();
            long limit = req.getCapacityRange().getLimitBytes();
            require(required >= 0, "capacity_range.required_bytes cannot be negative");
            require(limit >= 0, "capacity_range.limit_bytes cannot be negative");
            require(limit == 0 || required <= limit, "capacity_range.required_bytes (" + required
                    + ") exceeds limit_bytes (" + limit + ")");
            checkMutableParameters(req.getMutableParamsMap());
            Source source = source(req);
            checkTopology(req);
            Volume v = store.create(new VolumeStore.CreateSpec(req.getName(), required, limit,
                    req.getParametersMap(), req.getMutableParamsMap(), source)).volume();
            return CreateVolumeResponse.newBuilder().setVolume(toProto(v)).build();
        });
    }

    private void checkMutableParameters(java.util.Map<String, String> params) {
        for (String key : params.keySet()) {
            require(config.controller().mutableParameters().contains(key), "mutable_parameters: '" + key
                    + "' is not supported (supported: " + config.controller().mutableParameters() + ")");
        }
    }

    private Source source(CreateVolumeRequest req) {
        if (!req.hasVolumeContentSource()) {
            return null;
        }
        VolumeContentSource src = req.getVolumeContentSource();
        return switch (src.getTypeCase()) {
            case SNAPSHOT -> {
                requireCapability(Type.CREATE_DELETE_SNAPSHOT, "CreateVolume from a snapshot");
                notEmpty(src.getSnapshot().getSnapshotId(), "volume_content_source.snapshot.snapshot_id");
                yield new Source(Source.Kind.SNAPSHOT, src.getSnapshot().getSnapshotId());
            }
            case VOLUME -> {
                requireCapability(Type.CLONE_VOLUME, "CreateVolume from a volume");
                notEmpty(src.getVolume().getVolumeId(), "volume_content_source.volume.volume_id");
                yield new Source(Source.Kind.VOLUME, src.getVolume().getVolumeId());
            }
            default -> throw invalid("volume_content_source has neither a snapshot nor a volume");
        };
    }

    private void checkTopology(CreateVolumeRequest req) {
        if (!config.topology().enabled() || !req.hasAccessibilityRequirements()) {
            return;
        }
        TopologyRequirement t = req.getAccessibilityRequirements();
        if (t.getRequisiteCount() > 0 && !t.getRequisiteList().contains(nodeTopology)) {
            throw Status.RESOURCE_EXHAUSTED.withDescription("no requisite topology matches this driver's node "
                    + nodeTopology.getSegmentsMap()).asRuntimeException();
        }
    }

    private csi.v1.Csi.Volume toProto(Volume v) {
        csi.v1.Csi.Volume.Builder b = csi.v1.Csi.Volume.newBuilder()
                .setVolumeId(v.id())
                .setCapacityBytes(v.capacityBytes());
        if (v.source() != null) {
            VolumeContentSource.Builder src = VolumeContentSource.newBuilder();
            if (v.source().kind() == Source.Kind.SNAPSHOT) {
                src.setSnapshot(VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(v.source().id()));
            } else {
                src.setVolume(VolumeContentSource.VolumeSource.newBuilder().setVolumeId(v.source().id()));
            }
            b.setContentSource(src);
        }
        if (config.topology().enabled()) {
            b.addAccessibleTopology(nodeTopology);
        }
        return b.build();
    }

    @Override
    public void deleteVolume(DeleteVolumeRequest req, StreamObserver<DeleteVolumeResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getDeleteVolumeMethod(), observer, () -> {
            notEmpty(req.getVolumeId(), "volume_id");
            store.delete(req.getVolumeId());
            return DeleteVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest req,
            StreamObserver<ValidateVolumeCapabilitiesResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getValidateVolumeCapabilitiesMethod(), observer, () -> {
            notEmpty(req.getVolumeId(), "volume_id");
            capabilities(req.getVolumeCapabilitiesList(), "volume_capabilities");
            Volume v = store.volume(req.getVolumeId())
                    .orElseThrow(() -> notFound("volume " + req.getVolumeId() + " does not exist"));
            if (!req.getParametersMap().isEmpty() && !req.getParametersMap().equals(v.parameters())) {
                return ValidateVolumeCapabilitiesResponse.newBuilder()
                        .setMessage("parameters differ from those the volume was created with").build();
            }
            return ValidateVolumeCapabilitiesResponse.newBuilder()
                    .setConfirmed(ValidateVolumeCapabilitiesResponse.Confirmed.newBuilder()
                            .putAllVolumeContext(req.getVolumeContextMap())
                            .addAllVolumeCapabilities(req.getVolumeCapabilitiesList())
                            .putAllParameters(req.getParametersMap())
                            .putAllMutableParams(req.getMutableParamsMap()))
                    .build();
        });
    }

    @Override
    public void listVolumes(ListVolumesRequest req, StreamObserver<ListVolumesResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getListVolumesMethod(), observer, () -> {
            require(req.getMaxEntries() >= 0, "max_entries cannot be negative");
            Page<Volume> page = store.listVolumes(req.getStartingToken(), req.getMaxEntries());
            ListVolumesResponse.Builder b = ListVolumesResponse.newBuilder().setNextToken(page.nextToken());
            boolean publishedNodes = advertised.contains(Type.LIST_VOLUMES_PUBLISHED_NODES);
            for (Volume v : page.entries()) {
                ListVolumesResponse.Entry.Builder e = ListVolumesResponse.Entry.newBuilder().setVolume(toProto(v));
                ListVolumesResponse.VolumeStatus.Builder status = ListVolumesResponse.VolumeStatus.newBuilder()
                        .setVolumeCondition(healthy());
                if (publishedNodes) {
                    status.addAllPublishedNodeIds(v.publishedNodes().keySet());
                }
                b.addEntries(e.setStatus(status));
            }
            return b.build();
        });
    }

    private static VolumeCondition healthy() {
        return VolumeCondition.newBuilder().setAbnormal(false).setMessage("volume is healthy").build();
    }

    @Override
    public void controllerGetVolume(ControllerGetVolumeRequest req,
            StreamObserver<ControllerGetVolumeResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getControllerGetVolumeMethod(), observer, () -> {
            notEmpty(req.getVolumeId(), "volume_id");
            Volume v = store.volume(req.getVolumeId())
                    .orElseThrow(() -> notFound("volume " + req.getVolumeId() + " does not exist"));
            ControllerGetVolumeResponse.VolumeStatus.Builder status = ControllerGetVolumeResponse.VolumeStatus
                    .newBuilder().setVolumeCondition(healthy());
            if (advertised.contains(Type.LIST_VOLUMES_PUBLISHED_NODES)) {
                status.addAllPublishedNodeIds(v.publishedNodes().keySet());
            }
            return ControllerGetVolumeResponse.newBuilder().setVolume(toProto(v)).setStatus(status).build();
        });
    }

    @Override
    public void controllerModifyVolume(ControllerModifyVolumeRequest req,
            StreamObserver<ControllerModifyVolumeResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getControllerModifyVolumeMethod(), observer, () -> {
            requireCapability(Type.MODIFY_VOLUME, "ControllerModifyVolume");
            notEmpty(req.getVolumeId(), "volume_id");
            require(req.getMutableParamsCount() > 0, "mutable_parameters is required");
            checkMutableParameters(req.getMutableParamsMap());
            store.modify(req.getVolumeId(), req.getMutableParamsMap());
            return ControllerModifyVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void getCapacity(GetCapacityRequest req, StreamObserver<GetCapacityResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getGetCapacityMethod(), observer, () -> {
            for (int i = 0; i < req.getVolumeCapabilitiesCount(); i++) {
                capability(req.getVolumeCapabilities(i), "volume_capabilities[" + i + "]");
            }
            long available = store.availableBytes();
            long max = store.limits().maxVolumeSize();
            GetCapacityResponse.Builder b = GetCapacityResponse.newBuilder()
                    .setAvailableCapacity(available < 0 ? Long.MAX_VALUE : available);
            if (max > 0) {
                b.setMaximumVolumeSize(Int64Value.of(available < 0 ? max : Math.min(max, available)));
            }
            return b.build();
        });
    }

    @Override
    public void controllerGetCapabilities(ControllerGetCapabilitiesRequest req,
            StreamObserver<ControllerGetCapabilitiesResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getControllerGetCapabilitiesMethod(), observer, () -> capabilitiesResponse);
    }

    // ------------------------------------------------------- publish/unpublish

    @Override
    public void controllerPublishVolume(ControllerPublishVolumeRequest req,
            StreamObserver<ControllerPublishVolumeResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getControllerPublishVolumeMethod(), observer, () -> {
            requireCapability(Type.PUBLISH_UNPUBLISH_VOLUME, "ControllerPublishVolume");
            notEmpty(req.getVolumeId(), "volume_id");
            notEmpty(req.getNodeId(), "node_id");
            require(req.hasVolumeCapability(), "volume_capability is required");
            capability(req.getVolumeCapability(), "volume_capability");
            if (store.volume(req.getVolumeId()).isEmpty()) {
                throw notFound("volume " + req.getVolumeId() + " does not exist");
            }
            if (!req.getNodeId().equals(config.nodeId())) {
                throw notFound("node " + req.getNodeId() + " does not exist (this driver's node is "
                        + config.nodeId() + ")");
            }
            Volume v = store.controllerPublish(req.getVolumeId(), req.getNodeId(), req.getReadonly(),
                    Checks.singleNode(req.getVolumeCapability()));
            return ControllerPublishVolumeResponse.newBuilder()
                    .putPublishContext("devicePath", "/dev/provbench/" + v.id()).build();
        });
    }

    @Override
    public void controllerUnpublishVolume(ControllerUnpublishVolumeRequest req,
            StreamObserver<ControllerUnpublishVolumeResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getControllerUnpublishVolumeMethod(), observer, () -> {
            requireCapability(Type.PUBLISH_UNPUBLISH_VOLUME, "ControllerUnpublishVolume");
            notEmpty(req.getVolumeId(), "volume_id");
            store.controllerUnpublish(req.getVolumeId(), req.getNodeId());
            return ControllerUnpublishVolumeResponse.getDefaultInstance();
        });
    }

    // ---------------------------------------------------------------- expand

    @Override
    public void controllerExpandVolume(ControllerExpandVolumeRequest req,
            StreamObserver<ControllerExpandVolumeResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getControllerExpandVolumeMethod(), observer, () -> {
            requireCapability(Type.EXPAND_VOLUME, "ControllerExpandVolume");
            notEmpty(req.getVolumeId(), "volume_id");
            require(req.hasCapacityRange(), "capacity_range is required");
            long required = req.getCapacityRange().getRequiredBytes();
            long limit = req.getCapacityRange().getLimitBytes();
            require(required >= 0 && limit >= 0, "capacity_range cannot be negative");
            require(limit == 0 || required <= limit, "capacity_range.required_bytes exceeds limit_bytes");
            Volume v = store.expand(req.getVolumeId(), required, limit);
            return ControllerExpandVolumeResponse.newBuilder().setCapacityBytes(v.capacityBytes())
                    .setNodeExpansionRequired(false).build();
        });
    }

    // ------------------------------------------------------------- snapshots

    @Override
    public void createSnapshot(CreateSnapshotRequest req, StreamObserver<CreateSnapshotResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getCreateSnapshotMethod(), observer, () -> {
            requireCapability(Type.CREATE_DELETE_SNAPSHOT, "CreateSnapshot");
            notEmpty(req.getName(), "name");
            Checks.specSize(req.getName(), "name");
            Checks.specSize(req.getParametersMap(), "parameters");
            notEmpty(req.getSourceVolumeId(), "source_volume_id");
            Snapshot s = store.createSnapshot(req.getName(), req.getSourceVolumeId());
            return CreateSnapshotResponse.newBuilder().setSnapshot(toProto(s)).build();
        });
    }

    private static csi.v1.Csi.Snapshot toProto(Snapshot s) {
        return csi.v1.Csi.Snapshot.newBuilder()
                .setSnapshotId(s.id())
                .setSourceVolumeId(s.sourceVolumeId())
                .setSizeBytes(s.sizeBytes())
                .setCreationTime(Timestamp.newBuilder().setSeconds(s.createdAt().getEpochSecond())
                        .setNanos(s.createdAt().getNano()))
                .setReadyToUse(true)
                .build();
    }

    @Override
    public void deleteSnapshot(DeleteSnapshotRequest req, StreamObserver<DeleteSnapshotResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getDeleteSnapshotMethod(), observer, () -> {
            requireCapability(Type.CREATE_DELETE_SNAPSHOT, "DeleteSnapshot");
            notEmpty(req.getSnapshotId(), "snapshot_id");
            store.deleteSnapshot(req.getSnapshotId());
            return DeleteSnapshotResponse.getDefaultInstance();
        });
    }

    @Override
    public void listSnapshots(ListSnapshotsRequest req, StreamObserver<ListSnapshotsResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getListSnapshotsMethod(), observer, () -> {
            requireCapability(Type.LIST_SNAPSHOTS, "ListSnapshots");
            require(req.getMaxEntries() >= 0, "max_entries cannot be negative");
            ListSnapshotsResponse.Builder b = ListSnapshotsResponse.newBuilder();
            if (!req.getSnapshotId().isEmpty()) {
                store.snapshot(req.getSnapshotId())
                        .filter(s -> req.getSourceVolumeId().isEmpty()
                                || s.sourceVolumeId().equals(req.getSourceVolumeId()))
                        .ifPresent(s -> b.addEntries(entry(s)));
                return b.build();
            }
            Page<Snapshot> page = store.listSnapshots(req.getStartingToken(), req.getMaxEntries(),
                    req.getSourceVolumeId());
            List<ListSnapshotsResponse.Entry> entries = new ArrayList<>(page.entries().size());
            page.entries().forEach(s -> entries.add(entry(s)));
            return b.addAllEntries(entries).setNextToken(page.nextToken()).build();
        });
    }

    private static ListSnapshotsResponse.Entry entry(Snapshot s) {
        return ListSnapshotsResponse.Entry.newBuilder().setSnapshot(toProto(s)).build();
    }

    @Override
    public void getSnapshot(GetSnapshotRequest req, StreamObserver<GetSnapshotResponse> observer) {
        injector.respond(csi.v1.ControllerGrpc.getGetSnapshotMethod(), observer, () -> {
            requireCapability(Type.CREATE_DELETE_SNAPSHOT, "GetSnapshot");
            notEmpty(req.getSnapshotId(), "snapshot_id");
            Snapshot s = store.snapshot(req.getSnapshotId())
                    .orElseThrow(() -> notFound("snapshot " + req.getSnapshotId() + " does not exist"));
            return GetSnapshotResponse.newBuilder().setSnapshot(toProto(s)).build();
        });
    }
}
