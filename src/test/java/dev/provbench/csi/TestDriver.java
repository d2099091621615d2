package dev.provbench.csi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Starts the application's {@link CsiServer} on a fresh temporary unix socket (once per application
 * start) and hands out a client for it.
 */
public final class TestDriver {
    private static CsiServer started;
    private static Path socket;
    private static CsiClient client;

    private TestDriver() {
    }

    public static synchronized CsiClient client(CsiServer server) {
        if (started != server || !server.isServing()) {
            try {
                if (client != null) {
                    client.close();
                }
                Path dir = Files.createTempDirectory("pb-test");
                socket = dir.resolve("csi.sock");
                server.start(new Endpoint.Unix(socket));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            started = server;
            client = new CsiClient(socket);
        }
        return client;
    }

    public static synchronized Path socket() {
        return socket;
    }
}
