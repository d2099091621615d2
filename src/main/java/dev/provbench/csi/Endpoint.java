package dev.provbench.csi;

import java.nio.file.Path;

/**
 * Where the CSI server listens. Accepted forms, as the kubernetes-csi sidecars accept them:
 * {@code unix:///abs/path.sock}, {@code unix://path}, {@code unix:/abs/path}, a bare path, and
 * {@code tcp://host:port} (for debugging only).
 */
public sealed interface Endpoint {

    record Unix(Path path) implements Endpoint {
        @Override
        public String toString() {
            return "unix://" + path;
        }
    }

    record Tcp(String host, int port) implements Endpoint {
        @Override
        public String toString() {
            return "tcp://" + host + ":" + port;
        }
    }

    /** Longest unix socket path Linux accepts (sun_path is 108 bytes including the NUL). */
    int MAX_UNIX_PATH = 107;

    static Endpoint parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("endpoint is empty");
        }
        String s = text.trim();
        if (s.startsWith("unix://")) {
            return unix(s.substring("unix://".length()), text);
        }
        if (s.startsWith("unix:")) {
            return unix(s.substring("unix:".length()), text);
        }
        if (s.startsWith("tcp://")) {
            String hostPort = s.substring("tcp://".length());
            int colon = hostPort.lastIndexOf(':');
            if (colon <= 0 || colon == hostPort.length() - 1) {
                throw new IllegalArgumentException("'" + text + "' needs host and port, e.g. tcp://127.0.0.1:10000");
            }
            String host = hostPort.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' has a port that is not a number");
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("'" + text + "' has a port outside 0-65535");
            }
            return new Tcp(host, port);
        }
        if (s.matches("^[a-zA-Z][a-zA-Z0-9+.-]*://.*")) {
            throw new IllegalArgumentException("'" + text + "' has an unsupported scheme (use unix:// or tcp://)");
        }
        return unix(s, text);
    }

    private static Endpoint unix(String path, String original) {
        if (path.isEmpty()) {
            throw new IllegalArgumentException("'" + original + "' has no socket path");
        }
        if (path.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_UNIX_PATH) {
            throw new IllegalArgumentException("'" + original + "' is longer than " + MAX_UNIX_PATH
                    + " bytes, the limit for a unix socket path");
        }
        return new Unix(Path.of(path));
    }
}
