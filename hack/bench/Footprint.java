// The footprint of a CSI driver process, measured from the outside (run by hack/bench/footprint):
//   start → first Probe answered: the process is forked here and Probe is tried every 2 ms on a fresh
//     connection until it answers (the harness is warmed by one discarded start first);
//   idle RSS: VmRSS from /proc/<pid>/status after IDLE seconds;
//   RSS holding COUNT volumes: after COUNT typical csi-provisioner CreateVolume calls (64 at a time, a
//     "pvc-<uuid>" name, one mount capability, two parameters, 1 GiB), then 2 s of quiet.
// Repeated REPEATS times (the fill only in the last): start and idle RSS are medians; every sample is printed.
//
//   java -cp "target/quarkus-app/lib/main/*:target/quarkus-app/app/*" hack/bench/Footprint.java \
//        LABEL SOCKET REPEATS IDLE COUNT -- COMMAND... (COMMAND serves CSI on SOCKET; {socket} is replaced)
// Prints one line per repeat and a summary line:
//   footprint label=L start_ms=… idle_rss_mib=… full_rss_mib=… volumes=N
import csi.v1.ControllerGrpc;
import csi.v1.Csi;
import csi.v1.IdentityGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

public class Footprint {
    static final EpollEventLoopGroup GROUP = new EpollEventLoopGroup(2);

    public static void main(String[] args) throws Exception {
        String label = args[0];
        Path socket = Path.of(args[1]);
        int repeats = Integer.parseInt(args[2]);
        int idleSeconds = Integer.parseInt(args[3]);
        int count = Integer.parseInt(args[4]);
        List<String> command = new ArrayList<>();
        for (String a : Arrays.asList(args).subList(Arrays.asList(args).indexOf("--") + 1, args.length)) {
            command.add(a.replace("{socket}", socket.toString()));
        }
        Path log = socket.resolveSibling(label + ".log");
        measure(command, socket, log, 0, -1); // warms this harness; not counted
        double[] start = new double[repeats], idle = new double[repeats];
        double[] full = new double[repeats];
        long volumes = 0;
        for (int i = 0; i < repeats; i++) {
            // the fill is slow for some peers: only the last start holds COUNT volumes
            double[] r = measure(command, socket, log, idleSeconds, i == repeats - 1 ? count : 0);
            start[i] = r[0];
            idle[i] = r[1];
            full[i] = r[2];
            if (i == repeats - 1) {
                full = new double[]{r[2]};
            }
            volumes = (long) r[3];
            System.out.printf("sample label=%s repeat=%d start_ms=%.1f idle_rss_mib=%.1f full_rss_mib=%.1f volumes=%d%n",
                    label, i + 1, r[0], r[1], r[2], volumes);
        }
        System.out.printf("footprint label=%s start_ms=%.1f idle_rss_mib=%.1f full_rss_mib=%.1f volumes=%d%n",
                label, median(start), median(idle), median(full), volumes);
        GROUP.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    static double[] measure(List<String> command, Path socket, Path log, int idleSeconds, int count)
            throws Exception {
        Files.deleteIfExists(socket);
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            double startMs = -1;
            long deadline = t0 + TimeUnit.SECONDS.toNanos(60);
            while (startMs < 0) {
                if (!p.isAlive()) {
                    throw new IllegalStateException("the driver exited with " + p.exitValue() + "; see " + log);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no Probe answer within 60 s; see " + log);
                }
                if (Files.exists(socket) && probe(socket)) {
                    startMs = (System.nanoTime() - t0) / 1e6;
                } else {
                    Thread.sleep(2);
                }
            }
            if (count < 0) {
                return new double[]{startMs, 0, 0, 0};
            }
            Thread.sleep(idleSeconds * 1000L);
            double idle = rssMiB(p.pid());
            if (count == 0) {
                return new double[]{startMs, idle, 0, 0};
            }
            long created = fill(socket, count);
            Thread.sleep(2000);
            double full = rssMiB(p.pid());
            return new double[]{startMs, idle, full, created};
        } finally {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
    }

    static ManagedChannel channel(Path socket) {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString())).eventLoopGroup(GROUP)
                .channelType(EpollDomainSocketChannel.class).usePlaintext().build();
    }

    static boolean probe(Path socket) {
        ManagedChannel ch = channel(socket);
        try {
            IdentityGrpc.newBlockingStub(ch).withDeadlineAfter(1, TimeUnit.SECONDS)
                    .probe(Csi.ProbeRequest.getDefaultInstance());
            return true;
        } catch (StatusRuntimeException e) {
            return false;
        } finally {
            ch.shutdownNow();
        }
    }

    static long fill(Path socket, int count) throws Exception {
        ManagedChannel ch = channel(socket);
        var controller = ControllerGrpc.newBlockingStub(ch);
        Csi.VolumeCapability cap = Csi.VolumeCapability.newBuilder()
                .setMount(Csi.VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
                .setAccessMode(Csi.VolumeCapability.AccessMode.newBuilder()
                        .setMode(Csi.VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
                .build();
        Map<String, String> params = Map.of("type", "ssd", "csi.storage.k8s.io/fstype", "ext4");
        AtomicLong next = new AtomicLong(), created = new AtomicLong(), failed = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(64);
        for (int t = 0; t < 64; t++) {
            pool.submit(() -> {
                while (next.incrementAndGet() <= count) {
                    try {
                        controller.withDeadlineAfter(30, TimeUnit.SECONDS).createVolume(Csi.CreateVolumeRequest
                                .newBuilder().setName("pvc-" + UUID.randomUUID()).addVolumeCapabilities(cap)
                                .setCapacityRange(Csi.CapacityRange.newBuilder().setRequiredBytes(1L << 30))
                                .putAllParameters(params).build());
                        created.incrementAndGet();
                    } catch (StatusRuntimeException e) {
                        failed.incrementAndGet();
                    }
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.HOURS);
        ch.shutdownNow();
        if (failed.get() > 0) {
            System.err.println("fill: " + failed.get() + " CreateVolume calls failed");
        }
        return created.get();
    }

    static double rssMiB(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
            }
        }
        throw new IllegalStateException("no VmRSS for " + pid);
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
