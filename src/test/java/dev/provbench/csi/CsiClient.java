package dev.provbench.csi;

import csi.v1.ControllerGrpc;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import org.junit.jupiter.api.function.Executable;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A grpc-java client over a real unix domain socket, as csi-provisioner connects. */
public final class CsiClient implements AutoCloseable {
    private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    private final ManagedChannel channel;
    public final IdentityGrpc.IdentityBlockingStub identity;
    public final ControllerGrpc.ControllerBlockingStub controller;
    public final NodeGrpc.NodeBlockingStub node;
    public final ControllerGrpc.ControllerFutureStub controllerAsync;

    public CsiClient(Path socket) {
        channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .eventLoopGroup(group)
                .channelType(EpollDomainSocketChannel.class)
                .usePlaintext()
                .build();
        // a deadline per call: a stub's withDeadlineAfter fixes one instant for every later call
        io.grpc.ClientInterceptor perCall = new io.grpc.ClientInterceptor() {
            public <Q, R> io.grpc.ClientCall<Q, R> interceptCall(io.grpc.MethodDescriptor<Q, R> method,
                    io.grpc.CallOptions options, io.grpc.Channel next) {
                return next.newCall(method, options.getDeadline() != null ? options
                        : options.withDeadlineAfter(30, TimeUnit.SECONDS));
            }
        };
        identity = IdentityGrpc.newBlockingStub(channel).withInterceptors(perCall);
        controller = ControllerGrpc.newBlockingStub(channel).withInterceptors(perCall);
        node = NodeGrpc.newBlockingStub(channel).withInterceptors(perCall);
        controllerAsync = ControllerGrpc.newFutureStub(channel);
    }

    /** Asserts that the call fails with {@code code}; returns the status description. */
    public static String expectCode(Status.Code code, Executable call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
        assertEquals(code, e.getStatus().getCode(), () -> "status was " + e.getStatus());
        return e.getStatus().getDescription();
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }
}
