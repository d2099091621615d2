package dev.provbench.csi;

import csi.v1.ControllerGrpc;
import csi.v1.Csi;
import csi.v1.IdentityGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The calls a driver's class-data archive is trained with (src/main/docker/cds-train, while the image is built):
 * csi-provisioner's start-up (Probe, GetPluginInfo, GetPluginCapabilities, ControllerGetCapabilities) and then what
 * it sends for a claim (CreateVolume and DeleteVolume, and one CreateVolume refused), on a fresh connection as csi-provisioner
 * makes it. The driver is another process; it loads the classes that serve these calls, and the JVM writes them to
 * its archive at exit, so a driver started from the image answers its first calls from the archive rather than the
 * jars (docs/benchmarks.md, "Class-data archives in the image"). Not a user command: it runs from the image's jars,
 * {@code java -cp '/deployments/lib/boot/*:/deployments/lib/main/*:/deployments/app/*' dev.provbench.csi.CdsTrainingClient SOCKET}.
 * Exit 0 when every call was answered as expected, 1 (naming the call) otherwise.
 */
public final class CdsTrainingClient {
    /** Volumes created and deleted: enough for the paths a claim takes, few enough to take no time. */
    static final int VOLUMES = 16;

    private CdsTrainingClient() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 1) {
            System.err.println("usage: CdsTrainingClient SOCKET");
            System.exit(2);
        }
        try {
            train(Path.of(args[0]));
        } catch (IllegalStateException | StatusRuntimeException e) {
            System.err.println("cds training: " + e.getMessage());
            System.exit(1);
        }
    }

    /** The calls, each checked; throws naming the first one that was not answered as expected. */
    public static void train(Path socket) throws InterruptedException {
        EpollEventLoopGroup group = new EpollEventLoopGroup(1);
        ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .eventLoopGroup(group).channelType(EpollDomainSocketChannel.class).usePlaintext().build();
        try {
            var identity = IdentityGrpc.newBlockingStub(channel);
            var controller = ControllerGrpc.newBlockingStub(channel);
            // a call the driver refuses throws (StatusRuntimeException); what it answers is checked here
            Csi.ProbeResponse probe = identity.withDeadlineAfter(10, TimeUnit.SECONDS)
                    .probe(Csi.ProbeRequest.getDefaultInstance());
            check("Probe", probe.hasReady() && probe.getReady().getValue());
            check("GetPluginInfo", !identity.withDeadlineAfter(10, TimeUnit.SECONDS)
                    .getPluginInfo(Csi.GetPluginInfoRequest.getDefaultInstance()).getName().isEmpty());
            identity.withDeadlineAfter(10, TimeUnit.SECONDS)
                    .getPluginCapabilities(Csi.GetPluginCapabilitiesRequest.getDefaultInstance());
            check("ControllerGetCapabilities", controller.withDeadlineAfter(10, TimeUnit.SECONDS)
                    .controllerGetCapabilities(Csi.ControllerGetCapabilitiesRequest.getDefaultInstance())
                    .getCapabilitiesCount() > 0);
            Csi.VolumeCapability mount = Csi.VolumeCapability.newBuilder()
                    .setMount(Csi.VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
                    .setAccessMode(Csi.VolumeCapability.AccessMode.newBuilder()
                            .setMode(Csi.VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
                    .build();
            for (int i = 0; i < VOLUMES; i++) {
                String id = controller.withDeadlineAfter(10, TimeUnit.SECONDS).createVolume(
                        Csi.CreateVolumeRequest.newBuilder().setName("pvc-cds-training-" + i)
                                .setCapacityRange(Csi.CapacityRange.newBuilder().setRequiredBytes(1L << 30))
                                .addVolumeCapabilities(mount)
                                .putParameters("csi.storage.k8s.io/pv/name", "pvc-cds-training-" + i)
                                .build()).getVolume().getVolumeId();
                check("CreateVolume", !id.isEmpty());
                controller.withDeadlineAfter(10, TimeUnit.SECONDS)
                        .deleteVolume(Csi.DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
            }
            // a refused call: the error path (a status and its message) is served from the archive too
            try {
                controller.withDeadlineAfter(10, TimeUnit.SECONDS)
                        .createVolume(Csi.CreateVolumeRequest.getDefaultInstance());
                throw new IllegalStateException("CreateVolume without a name was not refused");
            } catch (StatusRuntimeException e) {
                check("CreateVolume without a name", e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT);
            }
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    private static void check(String call, boolean ok) {
        if (!ok) {
            throw new IllegalStateException(call + " was not answered as expected");
        }
    }
}
