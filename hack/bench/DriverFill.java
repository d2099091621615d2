// Fills the mock CSI driver with volumes, as typical csi-provisioner CreateVolume requests (a "pvc-<uuid>"
// name, one mount capability, two parameters, a 1Gi capacity), 64 at a time on one connection, until COUNT
// exist or the driver answers RESOURCE_EXHAUSTED. Then checks the driver still answers Probe. Run by
// hack/bench/driver-memory with the application's jars on the classpath.
//
//   java -cp "target/quarkus-app/lib/main/*:target/quarkus-app/app/*" hack/bench/DriverFill.java SOCKET COUNT [MODE]
// MODE typical (the default) or tiny-parameters: each request carries as many one-character parameters as
// the driver's 4 KiB bound admits (the most heap per volume a client can make it keep).
// Prints: created=N exhausted=true|false first_refusal="…" other_errors=N probe_after=ok|<code>
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

import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

public class DriverFill {
    public static void main(String[] args) throws Exception {
        String socket = args[0];
        long count = Long.parseLong(args[1]);
        java.util.Map<String, String> params = new java.util.HashMap<>();
        if (args.length > 2 && args[2].equals("tiny-parameters")) {
            for (int i = 0, bytes = 0; bytes + 6 <= 4096; i++) {
                String k = Integer.toString(i, 36);
                params.put(k, "x");
                bytes += k.length() + 1;
            }
        } else {
            params.put("type", "ssd");
            params.put("csi.storage.k8s.io/fstype", "ext4");
        }
        EpollEventLoopGroup group = new EpollEventLoopGroup(1);
        ManagedChannel ch = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket))
                .eventLoopGroup(group).channelType(EpollDomainSocketChannel.class).usePlaintext().build();
        var controller = ControllerGrpc.newBlockingStub(ch);
        Csi.VolumeCapability cap = Csi.VolumeCapability.newBuilder()
                .setMount(Csi.VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
                .setAccessMode(Csi.VolumeCapability.AccessMode.newBuilder()
                        .setMode(Csi.VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
                .build();
        AtomicLong next = new AtomicLong(), created = new AtomicLong(), otherErrors = new AtomicLong();
        AtomicBoolean exhausted = new AtomicBoolean();
        AtomicReference<String> refusal = new AtomicReference<>("");
        ExecutorService pool = Executors.newFixedThreadPool(64);
        for (int t = 0; t < 64; t++) {
            pool.submit(() -> {
                while (!exhausted.get() && next.incrementAndGet() <= count) {
                    try {
                        controller.withDeadlineAfter(30, TimeUnit.SECONDS).createVolume(Csi.CreateVolumeRequest
                                .newBuilder().setName("pvc-" + UUID.randomUUID()).addVolumeCapabilities(cap)
                                .setCapacityRange(Csi.CapacityRange.newBuilder().setRequiredBytes(1L << 30))
                                .putAllParameters(params)
                                .build());
                        created.incrementAndGet();
                    } catch (StatusRuntimeException e) {
                        if (e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED) {
                            exhausted.set(true);
                            refusal.compareAndSet("", String.valueOf(e.getStatus().getDescription()));
                        } else {
                            otherErrors.incrementAndGet();
                        }
                    }
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.HOURS);
        String probe;
        try {
            IdentityGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .probe(Csi.ProbeRequest.getDefaultInstance());
            probe = "ok";
        } catch (StatusRuntimeException e) {
            probe = e.getStatus().getCode().name();
        }
        System.out.printf("created=%d exhausted=%s first_refusal=\"%s\" other_errors=%d probe_after=%s%n",
                created.get(), exhausted.get(), refusal.get(), otherErrors.get(), probe);
        ch.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
