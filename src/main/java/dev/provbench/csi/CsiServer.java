package dev.provbench.csi;

import dev.provbench.csi.state.VolumeStore;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC server of the mock CSI driver: grpc-netty on an epoll unix domain socket (or TCP for debugging).
 * A stale socket file is removed before binding and the socket is removed when the server stops.
 */
/** Built by {@link DriverBeans} (or, for {@code provbench driver}, before Quarkus starts: {@link EarlyDriver}). */
public class CsiServer {
    private static final Logger LOG = Logger.getLogger(CsiServer.class);

    private final IdentityService identity;
    private final ControllerService controller;
    private final NodeService node;
    private final CallMetrics metrics;
    private final DriverConfig config;

    private Server server;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Endpoint endpoint;
    private String elsewhere;
    private final VolumeStore store;

    /**
     * The services are plain objects, not CDI beans: Quarkus' own gRPC server would otherwise claim them and
     * listen on TCP.
     */
    public CsiServer(VolumeStore store, FaultInjector injector, CallMetrics metrics, DriverConfig config,
            String buildVersion) {
        this.identity = new IdentityService(config, injector, buildVersion);
        this.controller = new ControllerService(store, injector, config);
        this.node = new NodeService(store, injector, config);
        this.metrics = metrics;
        this.config = config;
        this.store = store;
    }

    /** The driver's name, as GetPluginInfo answers it (what a StorageClass's provisioner names). */
    public String driverName() {
        return config.name();
    }

    /** Starts serving; fails if already serving. Returns the endpoint actually bound (TCP port 0 resolved). */
    public synchronized Endpoint start(Endpoint where) throws IOException {
        if (server != null) {
            throw new IllegalStateException("the CSI server is already serving on " + endpoint);
        }
        NettyServerBuilder builder;
        if (where instanceof Endpoint.Unix unix) {
            if (!Epoll.isAvailable()) {
                throw new IOException("unix sockets need Netty's native epoll transport, which is unavailable: "
                        + Epoll.unavailabilityCause());
            }
            prepareSocketPath(unix.path());
            boss = new EpollEventLoopGroup(1);
            workers = new EpollEventLoopGroup(config.workerThreads());
            builder = NettyServerBuilder.forAddress(new DomainSocketAddress(unix.path().toString()))
                    .channelType(EpollServerDomainSocketChannel.class)
                    .bossEventLoopGroup(boss)
                    .workerEventLoopGroup(workers);
        } else {
            Endpoint.Tcp tcp = (Endpoint.Tcp) where;
            builder = NettyServerBuilder.forAddress(new InetSocketAddress(tcp.host(), tcp.port()));
        }
        // Handlers never block (latency injection is scheduled), so they run on the event loops.
        builder.directExecutor()
                .addService(ServerInterceptors.intercept(identity, metrics.interceptor()))
                .addService(ServerInterceptors.intercept(controller, metrics.interceptor()))
                .addService(ServerInterceptors.intercept(node, metrics.interceptor()));
        Server s = builder.build();
        try {
            s.start();
        } catch (IOException e) {
            shutdownGroups();
            throw new IOException("cannot listen on " + where + ": " + e.getMessage(), e);
        }
        if (where instanceof Endpoint.Unix unix) {
            try {
                Files.setPosixFilePermissions(unix.path(), socketMode(config.socketMode()));
            } catch (IOException | RuntimeException e) {
                s.shutdownNow();
                shutdownGroups();
                throw new IOException("cannot set the mode of " + unix.path() + " to " + config.socketMode() + ": "
                        + e.getMessage(), e);
            }
        }
        server = s;
        endpoint = where instanceof Endpoint.Tcp t && t.port() == 0
                ? new Endpoint.Tcp(t.host(), ((InetSocketAddress) s.getListenSockets().get(0)).getPort())
                : where;
        LOG.infof("CSI driver %s serving Identity, Controller and Node on %s (at most %d volumes)", config.name(),
                endpoint, store.limits().maxVolumes());
        return endpoint;
    }

    /** An octal mode such as 0660 as permissions; the setuid, setgid and sticky bits are not accepted. */
    static java.util.Set<java.nio.file.attribute.PosixFilePermission> socketMode(String octal) {
        if (octal == null || !octal.matches("0?[0-7]{3}")) {
            throw new IllegalArgumentException("socket mode '" + octal + "' is not an octal mode like 0660");
        }
        int mode = Integer.parseInt(octal, 8);
        StringBuilder b = new StringBuilder();
        String rwx = "rwx";
        for (int bit = 8; bit >= 0; bit--) {
            b.append((mode & (1 << bit)) != 0 ? rwx.charAt((8 - bit) % 3) : '-');
        }
        return java.nio.file.attribute.PosixFilePermissions.fromString(b.toString());
    }

    /**
     * Removes a socket file left behind by an earlier run; refuses to remove anything that is not a socket.
     */
    static void prepareSocketPath(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attrs.isOther()) {
                throw new IOException(path + " exists and is not a socket; not removing it");
            }
            Files.delete(path);
            LOG.infof("removed stale socket %s", path);
        }
    }

    /**
     * Marks this process as one that serves no driver ({@code serve --no-driver}): the driver runs in another
     * process, whose HTTP API is at {@code where}. Readiness then does not wait for a socket and the
     * {@code /driver/} API answers 404 naming that place. Null undoes it (tests).
     */
    public synchronized void servedElsewhere(String where) {
        elsewhere = where;
    }

    /** Where the driver runs when this process serves none ({@code serve --no-driver}), else null. */
    public synchronized String elsewhere() {
        return server == null || server.isShutdown() ? elsewhere : null;
    }

    public synchronized boolean isServing() {
        return server != null && !server.isShutdown();
    }

    public synchronized Endpoint endpoint() {
        return endpoint;
    }

    public synchronized void stop() {
        if (server == null) {
            return;
        }
        server.shutdown();
        try {
            if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
                server.shutdownNow();
            }
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        }
        shutdownGroups();
        if (endpoint instanceof Endpoint.Unix unix) {
            try {
                Files.deleteIfExists(unix.path());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot remove socket " + unix.path(), e);
            }
        }
        LOG.infof("CSI driver stopped serving on %s", endpoint);
        server = null;
    }

    private void shutdownGroups() {
        if (boss != null) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            boss = null;
            workers = null;
        }
    }
}
