package dev.provbench.csi;

import com.google.common.util.concurrent.ListenableFuture;
import csi.v1.Csi.CapacityRange;
import csi.v1.Csi.ControllerExpandVolumeRequest;
import csi.v1.Csi.ControllerGetCapabilitiesRequest;
import csi.v1.Csi.ControllerGetVolumeRequest;
import csi.v1.Csi.ControllerModifyVolumeRequest;
import csi.v1.Csi.ControllerPublishVolumeRequest;
import csi.v1.Csi.ControllerServiceCapability;
import csi.v1.Csi.ControllerUnpublishVolumeRequest;
import csi.v1.Csi.CreateSnapshotRequest;
import csi.v1.Csi.CreateVolumeRequest;
import csi.v1.Csi.CreateVolumeResponse;
import csi.v1.Csi.DeleteSnapshotRequest;
import csi.v1.Csi.DeleteVolumeRequest;
import csi.v1.Csi.GetCapacityRequest;
import csi.v1.Csi.GetSnapshotRequest;
import csi.v1.Csi.ListSnapshotsRequest;
import csi.v1.Csi.ListSnapshotsResponse;
import csi.v1.Csi.ListVolumesRequest;
import csi.v1.Csi.ListVolumesResponse;
import csi.v1.Csi.Topology;
import csi.v1.Csi.TopologyRequirement;
import csi.v1.Csi.ValidateVolumeCapabilitiesRequest;
import csi.v1.Csi.ValidateVolumeCapabilitiesResponse;
import csi.v1.Csi.VolumeCapability;
import csi.v1.Csi.VolumeContentSource;
import dev.provbench.csi.state.Limits;
import dev.provbench.csi.state.VolumeStore;
import io.grpc.Status.Code;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static dev.provbench.csi.CsiClient.expectCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
class ControllerServiceTest {
    static final long GI = 1L << 30;

    @Inject
    CsiServer server;
    @Inject
    VolumeStore store;
    @Inject
    DriverConfig config;

    CsiClient csi;

    @BeforeEach
    void connect() {
        csi = TestDriver.client(server);
    }

    static VolumeCapability mountRwo() {
        return VolumeCapability.newBuilder()
                .setMount(VolumeCapability.MountVolume.getDefaultInstance())
                .setAccessMode(VolumeCapability.AccessMode.newBuilder()
                        .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
                .build();
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    static CreateVolumeRequest.Builder create(String name) {
        return CreateVolumeRequest.newBuilder().setName(name).addVolumeCapabilities(mountRwo());
    }

    static CapacityRange range(long required, long limit) {
        return CapacityRange.newBuilder().setRequiredBytes(required).setLimitBytes(limit).build();
    }

    String newVolume() {
        return csi.controller.createVolume(create(unique("vol")).build()).getVolume().getVolumeId();
    }

    // ----------------------------------------------------------------- create

    @Test
    void createReturnsRandomIdAndDefaultSize() {
        var a = csi.controller.createVolume(create(unique("a")).build()).getVolume();
        var b = csi.controller.createVolume(create(unique("b")).build()).getVolume();
        assertNotEquals(a.getVolumeId(), b.getVolumeId());
        assertTrue(a.getVolumeId().matches("[0-9a-f]{16}"), a.getVolumeId()); // 64 random bits, compact
        assertEquals(GI, a.getCapacityBytes(), "default size is 1Gi");
        assertEquals(1, a.getAccessibleTopologyCount(), "topology is on in the test profile");
        assertEquals("test-node", a.getAccessibleTopology(0).getSegmentsOrThrow("topology.provbench.dev/node"));
    }

    @Test
    void createIsIdempotentByName() {
        String name = unique("idem");
        var first = csi.controller.createVolume(create(name).setCapacityRange(range(5 * GI, 0)).build());
        var again = csi.controller.createVolume(create(name).setCapacityRange(range(5 * GI, 0)).build());
        assertEquals(first.getVolume().getVolumeId(), again.getVolume().getVolumeId());
        var compatible = csi.controller.createVolume(create(name).setCapacityRange(range(GI, 10 * GI)).build());
        assertEquals(first.getVolume().getVolumeId(), compatible.getVolume().getVolumeId());
    }

    @Test
    void sameNameIncompatibleRequestIsAlreadyExists() {
        String name = unique("clash");
        csi.controller.createVolume(create(name).setCapacityRange(range(GI, 0)).build());
        expectCode(Code.ALREADY_EXISTS, () ->
                csi.controller.createVolume(create(name).setCapacityRange(range(2 * GI, 0)).build()));
        expectCode(Code.ALREADY_EXISTS, () ->
                csi.controller.createVolume(create(name).putParameters("type", "fast").build()));
    }

    @Test
    void createValidatesArguments() {
        String noName = expectCode(Code.INVALID_ARGUMENT, () ->
                csi.controller.createVolume(CreateVolumeRequest.newBuilder().addVolumeCapabilities(mountRwo()).build()));
        assertTrue(noName.contains("name"), noName);
        String noCaps = expectCode(Code.INVALID_ARGUMENT, () ->
                csi.controller.createVolume(CreateVolumeRequest.newBuilder().setName(unique("x")).build()));
        assertTrue(noCaps.contains("volume_capabilities"), noCaps);
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.createVolume(CreateVolumeRequest.newBuilder()
                .setName(unique("x")).addVolumeCapabilities(VolumeCapability.newBuilder()
                        .setMount(VolumeCapability.MountVolume.getDefaultInstance())).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.createVolume(CreateVolumeRequest.newBuilder()
                .setName(unique("x")).addVolumeCapabilities(VolumeCapability.newBuilder()
                        .setAccessMode(mountRwo().getAccessMode())).build()));
        expectCode(Code.INVALID_ARGUMENT, () ->
                csi.controller.createVolume(create(unique("x")).setCapacityRange(range(2 * GI, GI)).build()));
        expectCode(Code.INVALID_ARGUMENT, () ->
                csi.controller.createVolume(create(unique("x")).setCapacityRange(range(-1, 0)).build()));
        expectCode(Code.INVALID_ARGUMENT, () ->
                csi.controller.createVolume(create(unique("x")).putMutableParams("bogus", "1").build()));
        // the spec's size limits bound what the store keeps: names 128 bytes, maps 4 KiB
        String n128 = "n".repeat(128);
        csi.controller.createVolume(create(n128).putParameters("k", "v".repeat(4095)).build());
        String longName = expectCode(Code.INVALID_ARGUMENT, () ->
                csi.controller.createVolume(create("n".repeat(129)).build()));
        assertTrue(longName.contains("128"), longName);
        String bigParams = expectCode(Code.INVALID_ARGUMENT, () ->
                csi.controller.createVolume(create(unique("x")).putParameters("k", "v".repeat(8192)).build()));
        assertTrue(bigParams.contains("parameters"), bigParams);
        expectCode(Code.INVALID_ARGUMENT, () ->
                csi.controller.createVolume(create(unique("x")).putSecrets("k", "v".repeat(4096)).build()));
    }

    @Test
    void capacityFollowsTheRange() {
        assertEquals(3 * GI, csi.controller.createVolume(create(unique("r"))
                .setCapacityRange(range(3 * GI, 3 * GI)).build()).getVolume().getCapacityBytes());
        assertEquals(512L << 20, csi.controller.createVolume(create(unique("l"))
                .setCapacityRange(range(0, 512L << 20)).build()).getVolume().getCapacityBytes(),
                "limit below the default caps the size");
    }

    @Test
    void limitsGiveOutOfRangeAndResourceExhausted() throws Exception {
        // a driver of its own: the counts and capacity it reads are only this test's volumes
        try (OwnDriver own = OwnDriver.start(config)) {
            own.store.setLimits(new Limits(GI, 4 * GI, 0, 0, 0, 0, 0));
            String tooBig = expectCode(Code.OUT_OF_RANGE, () -> own.csi.controller.createVolume(create(unique("big"))
                    .setCapacityRange(range(5 * GI, 0)).build()));
            assertTrue(tooBig.contains("maximum volume size"), tooBig);

            own.csi.controller.createVolume(create(unique("first")).build());
            own.store.setLimits(new Limits(GI, 0, 0, 2, 0, 0, 0));
            own.csi.controller.createVolume(create(unique("last")).build());
            expectCode(Code.RESOURCE_EXHAUSTED, () -> own.csi.controller.createVolume(create(unique("over")).build()));
            assertEquals(2, own.store.volumeCount(), "a refused create holds no volume");

            own.store.setLimits(new Limits(GI, 0, 4 * GI, 0, 0, 0, 0)); // 2 GiB used by the two above
            own.csi.controller.createVolume(create(unique("fits")).setCapacityRange(range(2 * GI, 0)).build());
            String noSpace = expectCode(Code.RESOURCE_EXHAUSTED, () -> own.csi.controller.createVolume(
                    create(unique("nospace")).build()));
            assertTrue(noSpace.contains("capacity"), noSpace);
            assertEquals(4 * GI, own.store.usedBytes());
        }
    }

    @Test
    void topologyRequirementsMustIncludeTheNode() {
        TopologyRequirement elsewhere = TopologyRequirement.newBuilder()
                .addRequisite(Topology.newBuilder().putSegments("topology.provbench.dev/node", "other")).build();
        expectCode(Code.RESOURCE_EXHAUSTED, () -> csi.controller.createVolume(create(unique("topo"))
                .setAccessibilityRequirements(elsewhere).build()));
        TopologyRequirement here = TopologyRequirement.newBuilder()
                .addRequisite(Topology.newBuilder().putSegments("topology.provbench.dev/node", "test-node")).build();
        csi.controller.createVolume(create(unique("topo")).setAccessibilityRequirements(here).build());
    }

    @Test
    void sixtyFourConcurrentCallersOfOneNameGetOneVolume() throws Exception {
        try (OwnDriver own = OwnDriver.start(config)) {
            String name = unique("race");
            List<ListenableFuture<CreateVolumeResponse>> calls = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                calls.add(own.csi.controllerAsync.withDeadlineAfter(30, TimeUnit.SECONDS)
                        .createVolume(create(name).build()));
            }
            Set<String> ids = new HashSet<>();
            for (var f : calls) {
                ids.add(f.get(30, TimeUnit.SECONDS).getVolume().getVolumeId());
            }
            assertEquals(1, ids.size(), "one name → one volume, got " + ids);
            assertEquals(1, own.store.volumeCount(), "the store holds that one volume");
        }
    }

    // ----------------------------------------------------------------- delete

    @Test
    void deleteRemovesAndUnknownIdIsOk() {
        String id = newVolume();
        assertTrue(store.volume(id).isPresent());
        csi.controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
        assertTrue(store.volume(id).isEmpty(), "this test's volume is gone");
        csi.controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
        csi.controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId("never-existed").build());
        expectCode(Code.INVALID_ARGUMENT, () ->
                csi.controller.deleteVolume(DeleteVolumeRequest.getDefaultInstance()));
    }

    @Test
    void nameCanBeReusedAfterDelete() {
        String name = unique("reuse");
        String first = csi.controller.createVolume(create(name).build()).getVolume().getVolumeId();
        csi.controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(first).build());
        String second = csi.controller.createVolume(create(name).build()).getVolume().getVolumeId();
        assertNotEquals(first, second);
    }

    // ------------------------------------------------------ validate / get

    @Test
    void validateVolumeCapabilities() {
        String id = newVolume();
        ValidateVolumeCapabilitiesResponse ok = csi.controller.validateVolumeCapabilities(
                ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId(id).addVolumeCapabilities(mountRwo())
                        .build());
        assertTrue(ok.hasConfirmed());
        assertEquals(mountRwo(), ok.getConfirmed().getVolumeCapabilities(0));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.validateVolumeCapabilities(
                ValidateVolumeCapabilitiesRequest.newBuilder().addVolumeCapabilities(mountRwo()).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.validateVolumeCapabilities(
                ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId(id).build()));
        expectCode(Code.NOT_FOUND, () -> csi.controller.validateVolumeCapabilities(
                ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId("nope").addVolumeCapabilities(mountRwo())
                        .build()));
    }

    @Test
    void controllerGetVolume() {
        String id = newVolume();
        var rsp = csi.controller.controllerGetVolume(ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build());
        assertEquals(id, rsp.getVolume().getVolumeId());
        assertFalse(rsp.getStatus().getVolumeCondition().getAbnormal());
        expectCode(Code.NOT_FOUND, () -> csi.controller.controllerGetVolume(
                ControllerGetVolumeRequest.newBuilder().setVolumeId("nope").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.controllerGetVolume(
                ControllerGetVolumeRequest.getDefaultInstance()));
    }

    // ----------------------------------------------------------------- list

    @Test
    void listVolumesPaginatesAcrossPagesAndSurvivesDeletes() throws Exception {
        try (OwnDriver own = OwnDriver.start(config)) {
            List<String> mine = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                mine.add(own.csi.controller.createVolume(create(unique("vol")).build()).getVolume().getVolumeId());
            }
            Set<String> seen = new HashSet<>();
            String token = "";
            int pages = 0;
            do {
                ListVolumesResponse page = own.csi.controller.listVolumes(ListVolumesRequest.newBuilder()
                        .setMaxEntries(3).setStartingToken(token).build());
                assertTrue(page.getEntriesCount() <= 3);
                for (var e : page.getEntriesList()) {
                    assertTrue(seen.add(e.getVolume().getVolumeId()), "no duplicates across pages");
                }
                token = page.getNextToken();
                pages++;
                if (pages == 1) {
                    // deleting what was already listed must not invalidate the token
                    page.getEntriesList().forEach(e -> own.csi.controller.deleteVolume(
                            DeleteVolumeRequest.newBuilder().setVolumeId(e.getVolume().getVolumeId()).build()));
                }
            } while (!token.isEmpty() && pages < 10_000);
            assertEquals(3, pages, "7 volumes in pages of 3");
            assertEquals(new HashSet<>(mine), seen, "every volume once");
            assertEquals(4, own.csi.controller.listVolumes(ListVolumesRequest.getDefaultInstance())
                    .getEntriesCount(), "7 less the 3 deleted");
        }
    }

    @Test
    void listVolumesCountsFollowCreateAndDelete() throws Exception {
        try (OwnDriver own = OwnDriver.start(config)) {
            assertEquals(0, own.csi.controller.listVolumes(ListVolumesRequest.getDefaultInstance()).getEntriesCount());
            String id = own.csi.controller.createVolume(create(unique("vol")).build()).getVolume().getVolumeId();
            assertEquals(1, own.csi.controller.listVolumes(ListVolumesRequest.getDefaultInstance()).getEntriesCount());
            own.csi.controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
            assertEquals(0, own.csi.controller.listVolumes(ListVolumesRequest.getDefaultInstance()).getEntriesCount());
        }
    }

    @Test
    void listVolumesRejectsBadTokensAndNegativeMax() {
        expectCode(Code.ABORTED, () -> csi.controller.listVolumes(
                ListVolumesRequest.newBuilder().setStartingToken("invalid-token").build()));
        expectCode(Code.ABORTED, () -> csi.controller.listVolumes(
                ListVolumesRequest.newBuilder().setStartingToken("-4").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.listVolumes(
                ListVolumesRequest.newBuilder().setMaxEntries(-1).build()));
    }

    // ------------------------------------------------------- capacity, caps

    @Test
    void getCapacityReflectsTotal() throws Exception {
        try (OwnDriver own = OwnDriver.start(config)) {
            own.csi.controller.createVolume(create(unique("used")).setCapacityRange(range(2 * GI, 0)).build());
            own.store.setLimits(new Limits(GI, 8 * GI, 12 * GI, 0, 0, 0, 0));
            var rsp = own.csi.controller.getCapacity(GetCapacityRequest.newBuilder()
                    .addVolumeCapabilities(mountRwo()).build());
            assertEquals(10 * GI, rsp.getAvailableCapacity(), "12 GiB less this driver's 2 GiB volume");
            assertEquals(8 * GI, rsp.getMaximumVolumeSize().getValue());
        }
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.getCapacity(GetCapacityRequest.newBuilder()
                .addVolumeCapabilities(VolumeCapability.getDefaultInstance()).build()));
    }

    @Test
    void capabilitiesFollowConfiguration() {
        Set<ControllerServiceCapability.RPC.Type> caps = csi.controller
                .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList().stream().map(c -> c.getRpc().getType()).collect(Collectors.toSet());
        assertTrue(caps.containsAll(List.of(ControllerServiceCapability.RPC.Type.CREATE_DELETE_VOLUME,
                ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME,
                ControllerServiceCapability.RPC.Type.LIST_VOLUMES,
                ControllerServiceCapability.RPC.Type.CREATE_DELETE_SNAPSHOT,
                ControllerServiceCapability.RPC.Type.EXPAND_VOLUME,
                ControllerServiceCapability.RPC.Type.CLONE_VOLUME,
                ControllerServiceCapability.RPC.Type.MODIFY_VOLUME)), caps.toString());
    }

    // ------------------------------------------------------------- publish

    ControllerPublishVolumeRequest.Builder publish(String id) {
        return ControllerPublishVolumeRequest.newBuilder().setVolumeId(id).setNodeId("test-node")
                .setVolumeCapability(mountRwo());
    }

    @Test
    void controllerPublishChecksArgumentsBeforeExistence() {
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.controllerPublishVolume(
                publish("").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.controllerPublishVolume(
                publish("nope").setNodeId("").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.controllerPublishVolume(
                publish("nope").clearVolumeCapability().build()));
        expectCode(Code.NOT_FOUND, () -> csi.controller.controllerPublishVolume(publish("nope").build()));
        String id = newVolume();
        expectCode(Code.NOT_FOUND, () -> csi.controller.controllerPublishVolume(
                publish(id).setNodeId("other-node").build()));
    }

    @Test
    void controllerPublishIsIdempotentAndDetectsReadonlyConflict() {
        String id = newVolume();
        var first = csi.controller.controllerPublishVolume(publish(id).build());
        var again = csi.controller.controllerPublishVolume(publish(id).build());
        assertEquals(first.getPublishContextMap(), again.getPublishContextMap());
        expectCode(Code.ALREADY_EXISTS, () -> csi.controller.controllerPublishVolume(
                publish(id).setReadonly(true).build()));
        var status = csi.controller.controllerGetVolume(ControllerGetVolumeRequest.newBuilder().setVolumeId(id)
                .build()).getStatus();
        assertEquals(List.of("test-node"), status.getPublishedNodeIdsList());
        csi.controller.controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(id)
                .setNodeId("test-node").build());
        csi.controller.controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(id)
                .setNodeId("test-node").build());
        csi.controller.controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId("nope")
                .setNodeId("test-node").build());
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.controllerUnpublishVolume(
                ControllerUnpublishVolumeRequest.getDefaultInstance()));
    }

    @Test
    void attachLimitIsEnforced() throws Exception {
        // a driver of its own: the node's attachments it counts are only this test's
        try (OwnDriver own = OwnDriver.start(config)) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(own.csi.controller.createVolume(create(unique("vol")).build()).getVolume().getVolumeId());
            }
            own.store.setLimits(new Limits(GI, 0, 0, 0, 0, 2, 0));
            own.csi.controller.controllerPublishVolume(publish(ids.get(0)).build());
            own.csi.controller.controllerPublishVolume(publish(ids.get(1)).build());
            expectCode(Code.RESOURCE_EXHAUSTED, () -> own.csi.controller.controllerPublishVolume(
                    publish(ids.get(2)).build()));
            own.csi.controller.controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder()
                    .setVolumeId(ids.get(0)).setNodeId("test-node").build());
            own.csi.controller.controllerPublishVolume(publish(ids.get(2)).build());
        }
    }

    // ------------------------------------------------------------- expand, modify

    @Test
    void expandGrowsAndValidates() {
        String id = newVolume();
        var rsp = csi.controller.controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder().setVolumeId(id)
                .setCapacityRange(range(3 * GI, 0)).build());
        assertEquals(3 * GI, rsp.getCapacityBytes());
        assertEquals(3 * GI, store.volume(id).orElseThrow().capacityBytes());
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.controllerExpandVolume(
                ControllerExpandVolumeRequest.newBuilder().setCapacityRange(range(GI, 0)).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.controllerExpandVolume(
                ControllerExpandVolumeRequest.newBuilder().setVolumeId(id).build()));
        expectCode(Code.NOT_FOUND, () -> csi.controller.controllerExpandVolume(
                ControllerExpandVolumeRequest.newBuilder().setVolumeId("nope").setCapacityRange(range(GI, 0)).build()));
    }

    @Test
    void modifyVolume() {
        String id = newVolume();
        csi.controller.controllerModifyVolume(ControllerModifyVolumeRequest.newBuilder().setVolumeId(id)
                .putMutableParams("iops", "3000").build());
        assertEquals("3000", store.volume(id).orElseThrow().mutableParameters().get("iops"));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.controllerModifyVolume(
                ControllerModifyVolumeRequest.newBuilder().setVolumeId(id).putMutableParams("XXX", "1").build()));
        expectCode(Code.NOT_FOUND, () -> csi.controller.controllerModifyVolume(
                ControllerModifyVolumeRequest.newBuilder().setVolumeId("nope").putMutableParams("iops", "1").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.controllerModifyVolume(
                ControllerModifyVolumeRequest.newBuilder().putMutableParams("iops", "1").build()));
    }

    // ------------------------------------------------------------- snapshots

    @Test
    void snapshotsLifecycle() {
        String vol = newVolume();
        String name = unique("snap");
        var snap = csi.controller.createSnapshot(CreateSnapshotRequest.newBuilder().setName(name)
                .setSourceVolumeId(vol).build()).getSnapshot();
        assertTrue(snap.getReadyToUse());
        assertEquals(GI, snap.getSizeBytes());
        assertEquals(snap.getSnapshotId(), csi.controller.createSnapshot(CreateSnapshotRequest.newBuilder()
                .setName(name).setSourceVolumeId(vol).build()).getSnapshot().getSnapshotId());
        String other = newVolume();
        expectCode(Code.ALREADY_EXISTS, () -> csi.controller.createSnapshot(CreateSnapshotRequest.newBuilder()
                .setName(name).setSourceVolumeId(other).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.createSnapshot(CreateSnapshotRequest.newBuilder()
                .setSourceVolumeId(vol).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.createSnapshot(CreateSnapshotRequest.newBuilder()
                .setName(unique("s")).build()));
        expectCode(Code.NOT_FOUND, () -> csi.controller.createSnapshot(CreateSnapshotRequest.newBuilder()
                .setName(unique("s")).setSourceVolumeId("nope").build()));

        ListSnapshotsResponse byId = csi.controller.listSnapshots(ListSnapshotsRequest.newBuilder()
                .setSnapshotId(snap.getSnapshotId()).build());
        assertEquals(1, byId.getEntriesCount());
        assertEquals(0, csi.controller.listSnapshots(ListSnapshotsRequest.newBuilder().setSnapshotId("nope")
                .build()).getEntriesCount());
        ListSnapshotsResponse bySource = csi.controller.listSnapshots(ListSnapshotsRequest.newBuilder()
                .setSourceVolumeId(vol).build());
        assertEquals(List.of(snap.getSnapshotId()), bySource.getEntriesList().stream()
                .map(e -> e.getSnapshot().getSnapshotId()).toList());
        expectCode(Code.ABORTED, () -> csi.controller.listSnapshots(ListSnapshotsRequest.newBuilder()
                .setStartingToken("bad").build()));
        assertEquals(snap.getSnapshotId(), csi.controller.getSnapshot(GetSnapshotRequest.newBuilder()
                .setSnapshotId(snap.getSnapshotId()).build()).getSnapshot().getSnapshotId());
        expectCode(Code.NOT_FOUND, () -> csi.controller.getSnapshot(GetSnapshotRequest.newBuilder()
                .setSnapshotId("nope").build()));

        // a volume from the snapshot, and a clone of a volume
        var restored = csi.controller.createVolume(create(unique("restore")).setVolumeContentSource(
                VolumeContentSource.newBuilder().setSnapshot(VolumeContentSource.SnapshotSource.newBuilder()
                        .setSnapshotId(snap.getSnapshotId()))).build()).getVolume();
        assertEquals(snap.getSnapshotId(), restored.getContentSource().getSnapshot().getSnapshotId());
        expectCode(Code.NOT_FOUND, () -> csi.controller.createVolume(create(unique("restore")).setVolumeContentSource(
                VolumeContentSource.newBuilder().setSnapshot(VolumeContentSource.SnapshotSource.newBuilder()
                        .setSnapshotId("nope"))).build()));
        expectCode(Code.NOT_FOUND, () -> csi.controller.createVolume(create(unique("clone")).setVolumeContentSource(
                VolumeContentSource.newBuilder().setVolume(VolumeContentSource.VolumeSource.newBuilder()
                        .setVolumeId("nope"))).build()));
        csi.controller.createVolume(create(unique("clone")).setVolumeContentSource(VolumeContentSource.newBuilder()
                .setVolume(VolumeContentSource.VolumeSource.newBuilder().setVolumeId(vol))).build());

        csi.controller.deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(snap.getSnapshotId()).build());
        csi.controller.deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(snap.getSnapshotId()).build());
        expectCode(Code.INVALID_ARGUMENT, () -> csi.controller.deleteSnapshot(
                DeleteSnapshotRequest.getDefaultInstance()));
        assertEquals(0, csi.controller.listSnapshots(ListSnapshotsRequest.newBuilder()
                .setSnapshotId(snap.getSnapshotId()).build()).getEntriesCount());
    }

    @Test
    void listSnapshotsPaginates() {
        String vol = newVolume();
        for (int i = 0; i < 5; i++) {
            csi.controller.createSnapshot(CreateSnapshotRequest.newBuilder().setName(unique("page"))
                    .setSourceVolumeId(vol).build());
        }
        Set<String> seen = new HashSet<>();
        String token = "";
        int pages = 0;
        do {
            var page = csi.controller.listSnapshots(ListSnapshotsRequest.newBuilder().setSourceVolumeId(vol)
                    .setMaxEntries(2).setStartingToken(token).build());
            page.getEntriesList().forEach(e -> assertTrue(seen.add(e.getSnapshot().getSnapshotId())));
            token = page.getNextToken();
            pages++;
        } while (!token.isEmpty() && pages < 100);
        assertEquals(5, seen.size());
        assertEquals(3, pages);
    }
}
