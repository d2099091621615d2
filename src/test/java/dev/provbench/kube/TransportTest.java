package dev.provbench.kube;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each transport carries the run's requests and an informer's list and watch over TLS (fabric8's in-memory API on
 * 127.0.0.1 with https), every request still through the limiter and counted.
 */
class TransportTest {
    private KubernetesMockServer server;

    private void start(boolean https) {
        server = new KubernetesMockServer(new io.fabric8.mockwebserver.Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), https);
        server.init(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.destroy();
        }
    }

    /** https as to kube-apiserver; plain http as to the --local API, where HTTP/2 is not asked for. */
    @ParameterizedTest
    @CsvSource({"OPENSSL, false, true", "OPENSSL, true, true", "JDK, false, true", "JDK, true, true",
            "OPENSSL, true, false"})
    void requestsAndWatchesGoThroughEachTransport(Transport.Tls tls, boolean http2, boolean https) throws Exception {
        start(https);
        RequestStats stats = new RequestStats("t", null);
        Transport transport = new Transport(tls, http2);
        assertEquals(https, server.createClient().getConfiguration().getMasterUrl().startsWith("https:"));
        try (KubernetesClient client = KubeClients.client(server.createClient().getConfiguration(),
                RateLimiter.of(-1, 0), stats, transport)) {
            SharedIndexInformer<PersistentVolumeClaim> informer = client.persistentVolumeClaims().inNamespace("t")
                    .inform();
            try {
                informer.start().toCompletableFuture().get(20, TimeUnit.SECONDS);
                client.persistentVolumeClaims().inNamespace("t").resource(new PersistentVolumeClaimBuilder()
                        .withNewMetadata().withName("c1").endMetadata().withNewSpec().withAccessModes("ReadWriteOnce")
                        .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources().endSpec()
                        .build()).create();
                assertNotNull(client.persistentVolumeClaims().inNamespace("t").withName("c1").get());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (informer.getIndexer().getByKey("t/c1") == null && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertNotNull(informer.getIndexer().getByKey("t/c1"), "the watch delivered the claim");
            } finally {
                informer.stop();
            }
        }
        RequestStats.Snapshot s = stats.snapshot();
        // list + watch + create + get, each counted once with its answer
        assertTrue(s.total() >= 4, "requests counted: " + s.total());
        assertEquals(1L, s.byCode().get("201"));
    }

    @Test
    void boringSslLoadsOnThisPlatform() {
        // the images and CI are linux-x86_64, whose netty-tcnative the pom brings
        assertEquals(Transport.Tls.OPENSSL, new Transport(Transport.Tls.OPENSSL, false).effectiveTls());
        assertTrue(new Transport(Transport.Tls.OPENSSL, false).describe().startsWith("BoringSSL"));
        assertEquals(Transport.Tls.JDK, new Transport(Transport.Tls.JDK, true).effectiveTls());
        assertEquals("JDK TLS, HTTP/2", new Transport(Transport.Tls.JDK, true).describe());
    }

    @Test
    void theSettingsAreReadByName() {
        assertEquals(new Transport(Transport.Tls.JDK, true), Transport.of(" JDK ", true));
        assertEquals(new Transport(Transport.Tls.OPENSSL, false), Transport.of("openssl", false));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Transport.of("rot13", false));
        assertTrue(e.getMessage().contains("provbench.kube.tls"));
    }
}
