package dev.provbench.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every attempt gets exactly one outcome; failures without an answer say what they were. */
class RequestOutcomesTest {
    private static final RequestInfo GET = new RequestInfo("get", "persistentvolumeclaims");

    private static long sum(RequestStats.Snapshot s) {
        return s.byCode().values().stream().mapToLong(Long::longValue).sum();
    }

    @Test
    void outcomesBelongToTheEpochTheAttemptWasSentIn() {
        RequestStats stats = new RequestStats("t", null);
        long before = stats.request(GET, 0);
        int window = stats.beginEpoch();
        long a = stats.request(GET, 0);
        long b = stats.request(GET, 0);
        long c = stats.request(GET, 0);
        stats.answered(before, 200); // answered inside the window, sent before it
        stats.beginEpoch();
        stats.answered(a, 201); // answered after the window, sent in it
        stats.answered(a, 500); // a second report on the same attempt is ignored
        stats.unanswered(b, Failures.CLIENT_TIMEOUT);
        RequestStats.Snapshot w = stats.epoch(window);
        assertEquals(3, w.total());
        assertEquals(Map.of("201", 1L, "client-timeout", 1L, RequestStats.IN_FLIGHT, 1L), w.byCode());
        stats.answered(c, 200);
        assertEquals(Map.of("201", 1L, "200", 1L, "client-timeout", 1L), stats.epoch(window).byCode());
        assertEquals(Map.of("200", 1L), stats.epoch(0).byCode());
        RequestStats.Snapshot all = stats.snapshot();
        assertEquals(4, all.total());
        assertEquals(all.total(), sum(all));
    }

    @Test
    void connectionRefusedAndClientTimeoutAreTold() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        RequestStats stats = new RequestStats("t", null);
        try (KubernetesClient client = KubeClients.client(config(closedPort), RateLimiter.of(-1, 0), stats)) {
            KubernetesClientException e = assertThrows(KubernetesClientException.class,
                    () -> client.persistentVolumeClaims().inNamespace("default").withName("x").get());
            assertEquals(Failures.CONNECTION_REFUSED, stats.failed(e));
            assertFalse(Failures.outcomeUnknown(e), "a refused connection never carried the request");
        }
        List<Socket> held = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        held.add(silent.accept()); // accept, never answer
                    }
                } catch (Exception ignored) {
                    // closed
                }
            });
            t.setDaemon(true);
            t.start();
            try (KubernetesClient client = KubeClients.client(config(silent.getLocalPort()), RateLimiter.of(-1, 0),
                    stats)) {
                KubernetesClientException e = assertThrows(KubernetesClientException.class,
                        () -> client.persistentVolumeClaims().inNamespace("default").withName("x").get());
                assertEquals(Failures.CLIENT_TIMEOUT, stats.failed(e));
                assertTrue(Failures.outcomeUnknown(e), "the server may have acted on a request it never answered");
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        RequestStats.Snapshot all = stats.snapshot();
        assertEquals(2, all.total());
        assertEquals(Map.of(Failures.CONNECTION_REFUSED, 1L, Failures.CLIENT_TIMEOUT, 1L), all.byCode());
    }

    private static Config config(int port) {
        return new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:" + port)
                .withRequestTimeout(500).withConnectionTimeout(1000).build();
    }

    @Test
    void causesAreNamedOnce() {
        assertEquals("http-429", Failures.cause(new KubernetesClientException("x", 429, null)));
        assertEquals("http-504", Failures.cause(new KubernetesClientException("x", 504, null)));
        assertEquals("http-5xx", Failures.cause(new KubernetesClientException("x", 503, null)));
        assertEquals("http-403", Failures.cause(new KubernetesClientException("x", 403, null)));
    }
}
