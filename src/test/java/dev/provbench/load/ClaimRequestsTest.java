package dev.provbench.load;

import dev.provbench.kube.Failures;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.LimitingInterceptor;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The run's POST and DELETE of a claim, against a scripted API server on 127.0.0.1 (fabric8's mock web server),
 * each compared with what fabric8's own {@code create()} and {@code delete()} do for the same answer: the same
 * request on the wire, through the same interceptors, and the same exception (code, Status, failure kind).
 */
class ClaimRequestsTest {
    static final String CREATED = "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":"
            + "\"pb-r-1\",\"namespace\":\"ns\",\"uid\":\"u-42\",\"resourceVersion\":\"7\",\"labels\":{\"l\":\"r\"},"
            + "\"managedFields\":[{\"manager\":\"m\"}]},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"]},"
            + "\"status\":{\"phase\":\"Pending\"}}";
    static final String CONFLICT = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
            + "\"persistentvolumeclaims \\\"pb-r-1\\\" already exists\",\"reason\":\"AlreadyExists\",\"code\":409}";

    private MockWebServer server;
    private final BlockingQueue<MockResponse> answers = new LinkedBlockingQueue<>();
    private final List<RecordedRequest> seen = new CopyOnWriteArrayList<>();
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private KubernetesClient client;
    private RequestStats stats;

    @BeforeEach
    void serve() {
        server = new MockWebServer();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                seen.add(r);
                bodies.add(r.getBody().readUtf8());
                MockResponse a = answers.poll();
                return a != null ? a : new MockResponse().setResponseCode(500).setBody("{}");
            }
        });
        server.start(InetAddress.getLoopbackAddress(), 0);
        stats = new RequestStats("claim-requests-test", null);
        client = client("http://127.0.0.1:" + server.getPort(), 10_000);
    }

    private KubernetesClient client(String url, int requestTimeoutMs) {
        var config = new ConfigBuilder().withMasterUrl(url).withNamespace("ns").withRequestTimeout(requestTimeoutMs)
                .build();
        return KubeClients.client(config, RateLimiter.of(-1, 0), stats);
    }

    @AfterEach
    void stop() {
        client.close();
        try {
            server.shutdown();
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // its event loop had already ended (seen once under load after the closed-connection test): stopped
        }
    }

    static PersistentVolumeClaim claim(String name) {
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName(name).withNamespace("ns").addToLabels(RunConfig.LABEL, "r").endMetadata()
                .withNewSpec().withStorageClassName("sc").withAccessModes("ReadWriteOnce")
                .withNewResources().addToRequests("storage", new Quantity("1Mi")).endResources()
                .endSpec().build();
    }

    private static MockResponse answer(int code, String body) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json").setBody(body);
    }

    @Test
    void thePostAndTheDeleteAreTheOnesFabric8SendsAndGoThroughTheLimiter() {
        ClaimRequests claims = new ClaimRequests(client, claim("template"));
        answers.add(answer(201, CREATED));
        answers.add(answer(201, CREATED));
        answers.add(answer(200, CREATED));
        answers.add(answer(200, CREATED));
        client.persistentVolumeClaims().inNamespace("ns").resource(claim("pb-r-1")).create();
        assertEquals("u-42", claims.create("pb-r-1"), "the UID of the server's answer");
        client.persistentVolumeClaims().inNamespace("ns").withName("pb-r-1").delete();
        claims.delete("pb-r-1");
        assertEquals(4, seen.size());
        for (int i : new int[] {0, 2}) {
            RecordedRequest fabric8 = seen.get(i);
            RecordedRequest ours = seen.get(i + 1);
            assertEquals(fabric8.getMethod(), ours.getMethod());
            assertEquals(fabric8.getPath(), ours.getPath());
            assertEquals(bodies.get(i), bodies.get(i + 1), "the body, byte for byte");
            assertEquals(fabric8.getHeader("Content-Type"), ours.getHeader("Content-Type"));
            assertNotNull(ours.getHeader(LimitingInterceptor.ATTEMPT_HEADER), "the limiter saw it");
        }
        assertEquals("POST", seen.get(1).getMethod());
        assertEquals("/api/v1/namespaces/ns/persistentvolumeclaims", seen.get(1).getPath());
        assertEquals("DELETE", seen.get(3).getMethod());
        assertEquals("/api/v1/namespaces/ns/persistentvolumeclaims/pb-r-1", seen.get(3).getPath());
        assertTrue(bodies.get(3).contains("\"propagationPolicy\":\"Background\""), bodies.get(3));
    }

    /** Sends one request each way for the same scripted answer; returns fabric8's exception and ours. */
    private KubernetesClientException[] both(Supplier<MockResponse> answer, Runnable fabric8, Runnable ours) {
        answers.add(answer.get());
        KubernetesClientException theirs = assertThrows(KubernetesClientException.class, fabric8::run);
        answers.add(answer.get());
        KubernetesClientException mine = assertThrows(KubernetesClientException.class, ours::run);
        return new KubernetesClientException[] {theirs, mine};
    }

    @Test
    void anAnswerOtherThan2xxThrowsWhatFabric8Throws() {
        ClaimRequests claims = new ClaimRequests(client, claim("template"));
        var conflict = both(() -> answer(409, CONFLICT),
                () -> client.persistentVolumeClaims().inNamespace("ns").resource(claim("pb-r-1")).create(),
                () -> claims.create("pb-r-1"));
        assertEquals(409, conflict[1].getCode());
        assertEquals(conflict[0].getCode(), conflict[1].getCode());
        assertEquals(conflict[0].getStatus().getReason(), conflict[1].getStatus().getReason());
        assertEquals(conflict[0].getStatus().getMessage(), conflict[1].getStatus().getMessage());
        var busy = both(() -> answer(429, "{\"kind\":\"Status\",\"code\":429,\"message\":\"slow down\"}"),
                () -> client.persistentVolumeClaims().inNamespace("ns").withName("pb-r-1").delete(),
                () -> claims.delete("pb-r-1"));
        assertEquals(429, busy[1].getCode());
        assertEquals(Failures.cause(busy[0]), Failures.cause(busy[1]));
        var broken = both(() -> answer(503, "not json"),
                () -> client.persistentVolumeClaims().inNamespace("ns").resource(claim("pb-r-1")).create(),
                () -> claims.create("pb-r-1"));
        assertEquals(503, broken[1].getCode());
        assertEquals(Failures.cause(broken[0]), Failures.cause(broken[1]));
        assertEquals(Failures.outcomeUnknown(broken[0]), Failures.outcomeUnknown(broken[1]));
    }

    @Test
    void aDeleteOfAClaimAlreadyGonePassesAsFabric8sDoes() {
        ClaimRequests claims = new ClaimRequests(client, claim("template"));
        String gone = "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\"}";
        answers.add(answer(404, gone));
        assertTrue(client.persistentVolumeClaims().inNamespace("ns").withName("pb-r-1").delete().isEmpty());
        answers.add(answer(404, gone));
        claims.delete("pb-r-1");
        assertEquals(2, seen.size());
        answers.add(answer(404, gone));
        assertEquals(404, assertThrows(KubernetesClientException.class, () -> claims.create("pb-r-1")).getCode(),
                "a POST answered 404 is a failure");
    }

    @Test
    void noAnswerThrowsWhatFabric8ThrowsWithTheSameKindOfFailure() throws IOException {
        int free;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            free = s.getLocalPort();
        }
        try (KubernetesClient nobody = client("http://127.0.0.1:" + free, 10_000)) {
            ClaimRequests claims = new ClaimRequests(nobody, claim("template"));
            var theirs = assertThrows(KubernetesClientException.class,
                    () -> nobody.persistentVolumeClaims().inNamespace("ns").resource(claim("pb-r-1")).create());
            var ours = assertThrows(KubernetesClientException.class, () -> claims.create("pb-r-1"));
            assertEquals(Failures.CONNECTION_REFUSED, Failures.cause(theirs));
            assertEquals(Failures.cause(theirs), Failures.cause(ours));
            assertEquals(theirs.getCode() <= 0, ours.getCode() <= 0);
        }
        try (KubernetesClient impatient = client("http://127.0.0.1:" + server.getPort(), 300)) {
            ClaimRequests claims = new ClaimRequests(impatient, claim("template"));
            var slow = both(() -> answer(201, CREATED).setBodyDelay(3, TimeUnit.SECONDS),
                    () -> impatient.persistentVolumeClaims().inNamespace("ns").resource(claim("pb-r-1")).create(),
                    () -> claims.create("pb-r-1"));
            assertEquals(Failures.CLIENT_TIMEOUT, Failures.cause(slow[0]), "the client's request timeout holds");
            assertEquals(Failures.cause(slow[0]), Failures.cause(slow[1]));
        }
    }

    @Test
    void aConnectionClosedUnderTheRequestThrowsWhatFabric8Throws() throws Exception {
        try (ServerSocket closer = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            closer.setSoTimeout(200);
            Thread t = new Thread(() -> {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!closer.isClosed() && System.nanoTime() < until) {
                    try (Socket s = closer.accept()) {
                        s.getInputStream().read(new byte[1024]); // the request arrives; then the connection closes
                    } catch (IOException e) {
                        // a timeout of accept, or the socket closed: look again until the bound
                    }
                }
            }, "closer");
            t.setDaemon(true);
            t.start();
            try (KubernetesClient closing = client("http://127.0.0.1:" + closer.getLocalPort(), 10_000)) {
                ClaimRequests claims = new ClaimRequests(closing, claim("template"));
                var theirs = assertThrows(KubernetesClientException.class,
                        () -> closing.persistentVolumeClaims().inNamespace("ns").resource(claim("pb-r-1")).create());
                var ours = assertThrows(KubernetesClientException.class, () -> claims.create("pb-r-1"));
                var oursDelete = assertThrows(KubernetesClientException.class, () -> claims.delete("pb-r-1"));
                assertEquals(Failures.CONNECTION_ERROR, Failures.cause(theirs));
                assertEquals(Failures.cause(theirs), Failures.cause(ours));
                assertEquals(Failures.cause(theirs), Failures.cause(oursDelete));
                assertTrue(Failures.outcomeUnknown(ours), "the POST may have landed");
            }
            closer.close();
            t.join(5_000);
        }
    }

    @Test
    void aNameThatIsNotAKubernetesNameIsRefusedBeforeAnythingIsSent() {
        ClaimRequests claims = new ClaimRequests(client, claim("template"));
        for (String bad : new String[] {"A", "a\"b", "a/b", "-a", "", "a b"}) {
            assertThrows(IllegalArgumentException.class, () -> claims.create(bad), bad);
            assertThrows(IllegalArgumentException.class, () -> claims.delete(bad), bad);
        }
        assertEquals(0, seen.size());
        assertTrue(claims.body("pb-r-9").contains("\"name\":\"pb-r-9\""));
    }
}
