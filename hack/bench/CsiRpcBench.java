// A closed-loop load generator for the mock CSI driver, run as a single-file Java program by
// hack/bench/csi-rpc (which puts the application's jars on the classpath). N callers share one
// connection, as csi-provisioner does; each caller starts its next call when the previous one ends.
//
//   java -cp "target/quarkus-app/lib/main/*:target/quarkus-app/app/*" hack/bench/CsiRpcBench.java \
//        SOCKET MODE CALLERS WARMUP_SECONDS MEASURE_SECONDS [RATE]
//   MODE: probe | create-delete
//   RATE: ops per second, sent at a fixed pace whatever the answers (as csi-provisioner at its rates), instead of
//   CALLERS closed loops; 0 (the default) is the closed loops
import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import csi.v1.ControllerGrpc;
import csi.v1.Csi;
import csi.v1.IdentityGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

public class CsiRpcBench {
    static final int MAX_SAMPLES = 4_000_000;

    final IdentityGrpc.IdentityFutureStub identity;
    final ControllerGrpc.ControllerFutureStub controller;
    final String mode;
    final AtomicBoolean measuring = new AtomicBoolean();
    final AtomicBoolean stopping = new AtomicBoolean();
    final AtomicLong ops = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong names = new AtomicLong();
    final AtomicLongArray samples = new AtomicLongArray(MAX_SAMPLES);
    final AtomicLong sampleCount = new AtomicLong();
    CountDownLatch done;

    CsiRpcBench(ManagedChannel ch, String mode) {
        this.identity = IdentityGrpc.newFutureStub(ch);
        this.controller = ControllerGrpc.newFutureStub(ch);
        this.mode = mode;
    }

    static final Csi.VolumeCapability CAP = Csi.VolumeCapability.newBuilder()
            .setMount(Csi.VolumeCapability.MountVolume.getDefaultInstance())
            .setAccessMode(Csi.VolumeCapability.AccessMode.newBuilder()
                    .setMode(Csi.VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
            .build();

    /** One op per tick of a pacer instead of each caller's next op when its last one ends. */
    boolean paced;

    /** A closed loop's next op once the last one ended; a paced run's pacer sends its own. */
    void next() {
        if (!paced) {
            loop();
        }
    }

    void loop() {
        if (stopping.get()) {
            done.countDown();
            return;
        }
        long start = System.nanoTime();
        ListenableFuture<?> op = mode.equals("probe")
                ? identity.probe(Csi.ProbeRequest.getDefaultInstance())
                : Futures.transformAsync(controller.createVolume(Csi.CreateVolumeRequest.newBuilder()
                                .setName("bench-" + names.incrementAndGet()).addVolumeCapabilities(CAP).build()),
                        r -> controller.deleteVolume(Csi.DeleteVolumeRequest.newBuilder()
                                .setVolumeId(r.getVolume().getVolumeId()).build()),
                        MoreExecutors.directExecutor());
        Futures.addCallback(op, new FutureCallback<Object>() {
            public void onSuccess(Object r) {
                if (measuring.get()) {
                    ops.incrementAndGet();
                    long i = sampleCount.getAndIncrement();
                    if (i < MAX_SAMPLES) {
                        samples.set((int) i, System.nanoTime() - start);
                    }
                }
                next();
            }

            public void onFailure(Throwable t) {
                errors.incrementAndGet();
                next();
            }
        }, MoreExecutors.directExecutor());
    }

    public static void main(String[] args) throws Exception {
        String socket = args[0];
        String mode = args[1];
        int callers = Integer.parseInt(args[2]);
        int warmup = Integer.parseInt(args[3]);
        int measure = Integer.parseInt(args[4]);
        EpollEventLoopGroup group = new EpollEventLoopGroup(1);
        ManagedChannel ch = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket))
                .eventLoopGroup(group).channelType(EpollDomainSocketChannel.class).usePlaintext()
                .directExecutor().build();
        double rate = args.length > 5 ? Double.parseDouble(args[5]) : 0;
        CsiRpcBench b = new CsiRpcBench(ch, mode);
        java.util.concurrent.ScheduledExecutorService pacer = null;
        if (rate > 0) {
            b.paced = true;
            b.done = new CountDownLatch(0);
            pacer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
            pacer.scheduleAtFixedRate(b::loop, 0, Math.round(1e9 / rate), TimeUnit.NANOSECONDS);
        } else {
            b.done = new CountDownLatch(callers);
            for (int i = 0; i < callers; i++) {
                b.loop();
            }
        }
        Thread.sleep(warmup * 1000L);
        b.measuring.set(true);
        long t0 = System.nanoTime();
        Thread.sleep(measure * 1000L);
        b.measuring.set(false);
        double secs = (System.nanoTime() - t0) / 1e9;
        b.stopping.set(true);
        if (pacer != null) {
            pacer.shutdownNow();
        }
        b.done.await(30, TimeUnit.SECONDS);
        int n = (int) Math.min(b.sampleCount.get(), MAX_SAMPLES);
        long[] lat = new long[n];
        for (int i = 0; i < n; i++) {
            lat[i] = b.samples.get(i);
        }
        Arrays.sort(lat);
        int rpcsPerOp = mode.equals("probe") ? 1 : 2;
        System.out.printf("mode=%s callers=%s seconds=%.1f ops=%d ops_per_sec=%.0f rpcs_per_sec=%.0f "
                        + "p50_us=%.0f p99_us=%.0f max_us=%.0f errors=%d%n",
                mode, rate > 0 ? "paced-" + rate + "/s" : String.valueOf(callers), secs, b.ops.get(),
                b.ops.get() / secs, rpcsPerOp * b.ops.get() / secs,
                pct(lat, 0.50), pct(lat, 0.99), n == 0 ? 0 : lat[n - 1] / 1e3, b.errors.get());
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    static double pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e3;
    }
}
