package dev.provbench.load;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP proxy on 127.0.0.1 in front of a plain-HTTP API server that spoils chosen requests, the way a real
 * fault does: an answer lost after the server acted, a 504 after the server acted, or a 503 before it saw
 * the request. A test fault for the client's edges; the real pipeline's faults are in hack/fault-check.
 */
final class FaultyProxy implements AutoCloseable {
    enum Action { PASS, DROP_ANSWER, ANSWER_504, REFUSE_503, DROP_REQUEST }

    /** Decides for a request, given its method, path and how many requests with that method and path came before. */
    interface Rule {
        Action on(String method, String path, int seen);
    }

    private static final Pattern REQUEST_LINE = Pattern.compile("^(GET|POST|PUT|DELETE|PATCH) (\\S+) HTTP/1\\.1\r?$",
            Pattern.MULTILINE);

    private final ServerSocket server;
    private final InetSocketAddress upstream;
    private final Rule rule;
    private final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Map<Action, AtomicInteger> done = new ConcurrentHashMap<>();
    private volatile boolean closed;

    FaultyProxy(int upstreamPort, Rule rule) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.upstream = new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort);
        this.rule = rule;
        Thread t = new Thread(this::accept, "faulty-proxy");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** How many requests got {@code a}. */
    int count(Action a) {
        AtomicInteger n = done.get(a);
        return n == null ? 0 : n.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket up = new Socket();
                up.connect(upstream, 5000);
                sockets.add(client);
                sockets.add(up);
                Connection c = new Connection(client, up);
                start(c::clientToServer);
                start(c::serverToClient);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private static void start(Runnable r) {
        Thread t = new Thread(r, "faulty-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private final class Connection {
        final Socket client;
        final Socket up;
        volatile Action pending = Action.PASS;

        Connection(Socket client, Socket up) {
            this.client = client;
            this.up = up;
        }

        void clientToServer() {
            byte[] buf = new byte[65536];
            try (InputStream in = client.getInputStream(); OutputStream out = up.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    Matcher m = REQUEST_LINE.matcher(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                    if (m.find()) {
                        String key = m.group(1) + " " + m.group(2).replaceAll("\\?.*", "");
                        int count = seen.computeIfAbsent(key, k -> new AtomicInteger()).getAndIncrement();
                        Action a = rule.on(m.group(1), m.group(2), count);
                        done.computeIfAbsent(a, k -> new AtomicInteger()).incrementAndGet();
                        if (a == Action.REFUSE_503) {
                            answer(503, "ServiceUnavailable");
                            return;
                        }
                        if (a == Action.DROP_REQUEST) {
                            return; // the connection closes under the request: the server never sees it
                        }
                        pending = a;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side closed
            } finally {
                closeBoth();
            }
        }

        void serverToClient() {
            byte[] buf = new byte[65536];
            try (InputStream in = up.getInputStream(); OutputStream out = client.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    Action a = pending;
                    if (a == Action.DROP_ANSWER) {
                        return; // the server acted; the answer never arrives
                    }
                    if (a == Action.ANSWER_504) {
                        answer(504, "Timeout");
                        return;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side closed
            } finally {
                closeBoth();
            }
        }

        private void answer(int code, String reason) {
            String body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"" + reason
                    + "\",\"code\":" + code + "}";
            String head = "HTTP/1.1 " + code + " " + reason + "\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length() + "\r\nConnection: close\r\n\r\n";
            try {
                OutputStream o = client.getOutputStream();
                o.write((head + body).getBytes(StandardCharsets.ISO_8859_1));
                o.flush();
            } catch (IOException e) {
                // gone already
            }
        }

        private void closeBoth() {
            try {
                client.close();
            } catch (IOException ignored) {
                // closing
            }
            try {
                up.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
