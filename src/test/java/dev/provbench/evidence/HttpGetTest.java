package dev.provbench.evidence;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The evidence sources' reads against a server of the test's own on 127.0.0.1. */
class HttpGetTest {
    private static final String PAGE = "process_cpu_seconds_total 2.5\nprocess_resident_memory_bytes 1000\n"
            + "csi_sidecar_operations_seconds_count{grpc_status_code=\"OK\",method_name=\"/csi.v1.Controller/"
            + "DeleteVolume\"} 3\n";
    private HttpServer server;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final HttpGet http = new HttpGet();
    private final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    private final java.util.concurrent.ExecutorService exchanges = java.util.concurrent.Executors.newCachedThreadPool();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", x -> {
            seen.add(x.getRequestURI().getPath() + " " + x.getRequestHeaders().getFirst("Authorization") + " "
                    + x.getProtocol() + " upgrade=" + x.getRequestHeaders().getFirst("Upgrade"));
            byte[] body = switch (x.getRequestURI().getPath()) {
                case "/metrics" -> PAGE.getBytes(StandardCharsets.UTF_8);
                case "/big" -> new byte[2048];
                case "/slow" -> { // answers when the test ends (or after 10 s)
                    try {
                        release.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    yield new byte[1];
                }
                default -> "secret file content".getBytes(StandardCharsets.UTF_8);
            };
            x.sendResponseHeaders(x.getRequestURI().getPath().equals("/denied") ? 401 : 200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.setExecutor(exchanges);
        server.start();
    }

    @AfterEach
    void stop() {
        http.close();
        release.countDown();
        server.stop(0);
        exchanges.shutdownNow();
    }

    private URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    @Test
    void readsWithTheTokenOverPlainHttp11() throws Exception {
        byte[] b = http.read(url("/metrics"), Optional.of("tok"), Duration.ofSeconds(5), 1024, null);
        assertArrayEquals(PAGE.getBytes(StandardCharsets.UTF_8), b);
        assertArrayEquals(PAGE.getBytes(StandardCharsets.UTF_8),
                http.read(url("/metrics"), Optional.empty(), Duration.ofSeconds(5), 1024, null));
        assertEquals(List.of("/metrics Bearer tok HTTP/1.1 upgrade=null", "/metrics null HTTP/1.1 upgrade=null"), seen);
    }

    @Test
    void aServerTooSlowIsAnErrorWithinTheTimeoutNotAWait() {
        long t0 = System.nanoTime();
        Exception slow = assertThrows(Exception.class,
                () -> http.read(url("/slow"), Optional.empty(), Duration.ofMillis(200), 1024, null));
        assertTrue(System.nanoTime() - t0 < 8_000_000_000L, "gave up long before the answer came");
        assertFalse(slow.getMessage() != null && slow.getMessage().contains("secret"));
    }

    @Test
    void aReadOnAnEventLoopIsRefusedAndAClosedClientReadsNoMore() throws Exception {
        io.vertx.core.Vertx vertx = dev.provbench.kube.Transport.ownVertx();
        try {
            java.util.concurrent.CompletableFuture<Throwable> seenThere = new java.util.concurrent.CompletableFuture<>();
            vertx.runOnContext(v -> {
                try {
                    http.read(url("/metrics"), Optional.empty(), Duration.ofSeconds(1), 1024, null);
                    seenThere.complete(null);
                } catch (Exception e) {
                    seenThere.complete(e);
                }
            });
            Throwable t = seenThere.get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(t instanceof IllegalStateException && t.getMessage().contains("event loop"), String.valueOf(t));
        } finally {
            vertx.close();
        }
        assertTrue(seen.isEmpty(), "nothing sent from the event loop");
        http.close();
        assertThrows(IllegalStateException.class,
                () -> http.read(url("/metrics"), Optional.empty(), Duration.ofSeconds(1), 1024, null));
    }

    @Test
    void aCallerDescheduledBetweenStartingAReadAndListeningStillGetsTheWholeAnswer() throws Exception {
        // what a loaded machine does to the caller's thread: it stops after starting the request, long enough for
        // a local answer to come whole (each read here is answered well within the 300 ms)
        http.afterStart = () -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(PAGE.getBytes(StandardCharsets.UTF_8),
                    http.read(url("/metrics"), Optional.empty(), Duration.ofSeconds(2), 1024, null), "read " + i);
        }
        assertEquals(3, seen.size());
    }

    @Test
    void refusalsAndOversizedAnswersNameTheUrlNotTheBody() {
        Exception denied = assertThrows(IllegalStateException.class,
                () -> http.read(url("/denied"), Optional.empty(), Duration.ofSeconds(5), 1024, "the token: X"));
        assertEquals("HTTP 401 from " + url("/denied") + " (the token: X)", denied.getMessage());
        Exception big = assertThrows(IllegalStateException.class,
                () -> http.read(url("/big"), Optional.empty(), Duration.ofSeconds(5), 1024, null));
        assertTrue(big.getMessage().contains("longer than 1024 bytes"), big.getMessage());
        assertFalse(denied.getMessage().contains("secret"));
    }

    @Test
    void readersOfOnePageWithinOneSampleShareOneScrape() {
        AtomicLong now = new AtomicLong(0);
        MetricsScrape scrape = new MetricsScrape(http, url("/metrics"), now::get);
        assertEquals(2.5, scrape.process().cpuSeconds());
        now.addAndGet(MetricsScrape.SHARED_NANOS - 1);
        assertEquals(3.0, scrape.operationsAndStart().counts().get("csi_sidecar_operations DeleteVolume OK"));
        assertEquals(1, seen.size(), "one fetch for both readers");
        now.addAndGet(1);
        scrape.process();
        assertEquals(2, seen.size(), "a later sample fetches again");
    }
}
