package dev.provbench.csi;

import csi.v1.Csi.CapacityRange;
import csi.v1.Csi.GetPluginCapabilitiesRequest;
import csi.v1.Csi.GetPluginInfoRequest;
import csi.v1.Csi.NodeExpandVolumeRequest;
import csi.v1.Csi.NodeGetCapabilitiesRequest;
import csi.v1.Csi.NodeGetInfoRequest;
import csi.v1.Csi.NodeGetVolumeStatsRequest;
import csi.v1.Csi.NodePublishVolumeRequest;
import csi.v1.Csi.NodeServiceCapability;
import csi.v1.Csi.NodeStageVolumeRequest;
import csi.v1.Csi.NodeUnpublishVolumeRequest;
import csi.v1.Csi.NodeUnstageVolumeRequest;
import csi.v1.Csi.PluginCapability;
import csi.v1.Csi.ProbeRequest;
import csi.v1.Csi.VolumeCapability;
import io.grpc.Status.Code;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.provbench.csi.ControllerServiceTest.create;
import static dev.provbench.csi.ControllerServiceTest.mountRwo;
import static dev.provbench.csi.ControllerServiceTest.unique;
import static dev.provbench.csi.CsiClient.expectCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
class IdentityNodeServiceTest {
    @Inject
    CsiServer server;

    CsiClient csi;

    @TempDir
    Path dir;

    @BeforeEach
    void connect() {
        csi = TestDriver.client(server);
    }

    @Test
    void identity() {
        var info = csi.identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
        assertEquals("mock.csi.provbench.dev", info.getName());
        assertTrue(IdentityService.NAME.matcher(info.getName()).matches());
        assertFalse(info.getVendorVersion().isEmpty());
        assertTrue(csi.identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue());
        Set<PluginCapability.Service.Type> services = csi.identity
                .getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList()
                .stream().filter(PluginCapability::hasService).map(c -> c.getService().getType())
                .collect(Collectors.toSet());
        assertEquals(Set.of(PluginCapability.Service.Type.CONTROLLER_SERVICE,
                PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS), services);
    }

    @Test
    void theSocketIsForOwnerAndGroupOnlyWhateverTheUmask() throws Exception {
        assertEquals("rw-rw----", java.nio.file.attribute.PosixFilePermissions.toString(
                java.nio.file.Files.getPosixFilePermissions(TestDriver.socket())));
    }

    @Test
    void nodeInfoAndCapabilities() {
        var info = csi.node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
        assertEquals("test-node", info.getNodeId());
        assertTrue(info.getMaxVolumesPerNode() >= 0);
        assertEquals("test-node", info.getAccessibleTopology().getSegmentsOrThrow("topology.provbench.dev/node"));
        Set<NodeServiceCapability.RPC.Type> caps = csi.node.nodeGetCapabilities(
                        NodeGetCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList().stream()
                .map(c -> c.getRpc().getType()).collect(Collectors.toSet());
        assertTrue(caps.containsAll(Set.of(NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME,
                NodeServiceCapability.RPC.Type.GET_VOLUME_STATS, NodeServiceCapability.RPC.Type.EXPAND_VOLUME)));
    }

    @Test
    void stagePublishStatsExpandUnpublishUnstage() {
        var vol = csi.controller.createVolume(create(unique("node")).build()).getVolume();
        String id = vol.getVolumeId();
        String staging = dir.resolve("staging").toString();
        Path target = dir.resolve("pods/target");

        csi.node.nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging)
                .setVolumeCapability(mountRwo()).build());
        csi.node.nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging)
                .setVolumeCapability(mountRwo()).build());
        NodePublishVolumeRequest pub = NodePublishVolumeRequest.newBuilder().setVolumeId(id)
                .setStagingTargetPath(staging).setTargetPath(target.toString()).setVolumeCapability(mountRwo())
                .build();
        csi.node.nodePublishVolume(pub);
        assertTrue(Files.isDirectory(target), "NodePublishVolume creates the target path");
        csi.node.nodePublishVolume(pub);
        expectCode(Code.ALREADY_EXISTS, () -> csi.node.nodePublishVolume(pub.toBuilder().setReadonly(true).build()));

        var stats = csi.node.nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder().setVolumeId(id)
                .setVolumePath(target.toString()).build());
        assertEquals(vol.getCapacityBytes(), stats.getUsage(0).getTotal());
        expectCode(Code.NOT_FOUND, () -> csi.node.nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder()
                .setVolumeId(id).setVolumePath("some/path").build()));
        expectCode(Code.NOT_FOUND, () -> csi.node.nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder()
                .setVolumeId("nope").setVolumePath(target.toString()).build()));

        var expanded = csi.node.nodeExpandVolume(NodeExpandVolumeRequest.newBuilder().setVolumeId(id)
                .setVolumePath(target.toString()).setCapacityRange(CapacityRange.newBuilder()
                        .setRequiredBytes(vol.getCapacityBytes())).build());
        assertEquals(vol.getCapacityBytes(), expanded.getCapacityBytes());

        csi.node.nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
                .setTargetPath(target.toString()).build());
        assertFalse(Files.exists(target), "NodeUnpublishVolume removes the target path");
        csi.node.nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
                .setTargetPath(target.toString()).build());
        csi.node.nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(id)
                .setStagingTargetPath(staging).build());
        csi.node.nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(id)
                .setStagingTargetPath(staging).build());
        expectCode(Code.FAILED_PRECONDITION, () -> csi.node.nodePublishVolume(pub));
    }

    @Test
    void blockPublishCreatesAFile() throws Exception {
        VolumeCapability block = VolumeCapability.newBuilder()
                .setBlock(VolumeCapability.BlockVolume.getDefaultInstance())
                .setAccessMode(mountRwo().getAccessMode()).build();
        String id = csi.controller.createVolume(create(unique("blk")).clearVolumeCapabilities()
                .addVolumeCapabilities(block).build()).getVolume().getVolumeId();
        String staging = dir.resolve("staging").toString();
        Path target = dir.resolve("dev-target");
        csi.node.nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging)
                .setVolumeCapability(block).build());
        csi.node.nodePublishVolume(NodePublishVolumeRequest.newBuilder().setVolumeId(id)
                .setStagingTargetPath(staging).setTargetPath(target.toString()).setVolumeCapability(block).build());
        assertTrue(Files.isRegularFile(target));
        csi.node.nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
                .setTargetPath(target.toString()).build());
        assertFalse(Files.exists(target));
    }

    /** Paths the driver creates and removes: absolute, no NUL, no "..", and only what it created goes. */
    @Test
    void targetPathsAreCheckedAndOnlyWhatPublishCreatedIsRemoved() throws Exception {
        String id = csi.controller.createVolume(create(unique("paths")).build()).getVolume().getVolumeId();
        String staging = dir.resolve("staging").toString();
        csi.node.nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging)
                .setVolumeCapability(mountRwo()).build());
        for (String bad : new String[]{"relative/target", dir + "/a/../../escape", dir + "/nul\0x", "/"
                + "a".repeat(5000)}) {
            expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodePublishVolume(NodePublishVolumeRequest
                    .newBuilder().setVolumeId(id).setStagingTargetPath(staging).setTargetPath(bad)
                    .setVolumeCapability(mountRwo()).build()));
            expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeUnpublishVolume(NodeUnpublishVolumeRequest
                    .newBuilder().setVolumeId(id).setTargetPath(bad).build()));
        }
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeStageVolume(NodeStageVolumeRequest.newBuilder()
                .setVolumeId(id).setStagingTargetPath("staging").setVolumeCapability(mountRwo()).build()));
        assertFalse(Files.exists(dir.resolve("escape")));

        Path existing = Files.createDirectories(dir.resolve("kubelet-made"));
        Files.writeString(existing.resolve("keep"), "x");
        csi.node.nodePublishVolume(NodePublishVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging)
                .setTargetPath(existing.toString()).setVolumeCapability(mountRwo()).build());
        csi.node.nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
                .setTargetPath(existing.toString()).build());
        assertTrue(Files.exists(existing.resolve("keep")), "a path publish did not create stays");

        // a publish the state refuses leaves no directory behind
        Path other = dir.resolve("refused");
        csi.node.nodePublishVolume(NodePublishVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging)
                .setTargetPath(other.toString()).setVolumeCapability(mountRwo()).build());
        csi.node.nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id)
                .setTargetPath(other.toString()).build());
        csi.node.nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(id)
                .setStagingTargetPath(staging).build());
        expectCode(Code.FAILED_PRECONDITION, () -> csi.node.nodePublishVolume(NodePublishVolumeRequest.newBuilder()
                .setVolumeId(id).setStagingTargetPath(staging).setTargetPath(other.toString())
                .setVolumeCapability(mountRwo()).build()));
        assertFalse(Files.exists(other), "the refused publish's directory was removed");
    }

    @Test
    void nodeArgumentErrors() {
        String staging = dir.resolve("s").toString();
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeStageVolume(NodeStageVolumeRequest.newBuilder()
                .setStagingTargetPath(staging).setVolumeCapability(mountRwo()).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeStageVolume(NodeStageVolumeRequest.newBuilder()
                .setVolumeId("v").setVolumeCapability(mountRwo()).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeStageVolume(NodeStageVolumeRequest.newBuilder()
                .setVolumeId("v").setStagingTargetPath(staging).build()));
        expectCode(Code.NOT_FOUND, () -> csi.node.nodeStageVolume(NodeStageVolumeRequest.newBuilder()
                .setVolumeId("nope").setStagingTargetPath(staging).setVolumeCapability(mountRwo()).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder()
                .setStagingTargetPath(staging).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder()
                .setVolumeId("v").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodePublishVolume(NodePublishVolumeRequest.newBuilder()
                .setTargetPath("/t").setStagingTargetPath(staging).setVolumeCapability(mountRwo()).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodePublishVolume(NodePublishVolumeRequest.newBuilder()
                .setVolumeId("v").setStagingTargetPath(staging).setVolumeCapability(mountRwo()).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodePublishVolume(NodePublishVolumeRequest.newBuilder()
                .setVolumeId("v").setTargetPath("/t").setStagingTargetPath(staging).build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
                .setTargetPath("/t").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
                .setVolumeId("v").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder()
                .setVolumePath("/t").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder()
                .setVolumeId("v").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeExpandVolume(NodeExpandVolumeRequest.newBuilder()
                .setVolumePath("/t").build()));
        expectCode(Code.INVALID_ARGUMENT, () -> csi.node.nodeExpandVolume(NodeExpandVolumeRequest.newBuilder()
                .setVolumeId("v").build()));
        expectCode(Code.NOT_FOUND, () -> csi.node.nodeExpandVolume(NodeExpandVolumeRequest.newBuilder()
                .setVolumeId("nope").setVolumePath("/t").build()));
    }
}
