package dev.provbench.load;

import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The waits' informers decode views; the run client's serialization and requests are as before. */
class ViewsTest {
    static final String PV = "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"pvc-1\","
            + "\"uid\":\"u-1\",\"resourceVersion\":\"42\",\"managedFields\":[{\"manager\":\"m\",\"fieldsV1\":{}}]},"
            + "\"spec\":{\"claimRef\":{\"name\":\"c\",\"namespace\":\"ns\",\"uid\":\"cu\"},\"capacity\":{\"storage\":"
            + "\"1Gi\"},\"csi\":{\"driver\":\"d\",\"volumeHandle\":\"h-1\",\"volumeAttributes\":{\"a\":\"b\"}},"
            + "\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[]}}},\"status\":{\"phase\":\"Released\"}}";
    static final String PVC = "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\","
            + "\"namespace\":\"ns\",\"uid\":\"cu\",\"resourceVersion\":\"41\",\"labels\":{\"l\":\"r\"},"
            + "\"annotations\":{\"volume.kubernetes.io/storage-provisioner\":\"d\"}},\"spec\":{\"accessModes\":"
            + "[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":\"1Gi\"}},\"volumeName\":\"pvc-1\"},"
            + "\"status\":{\"phase\":\"Bound\",\"capacity\":{\"storage\":\"1Gi\"}}}";

    @Test
    void aWatchEventsObjectDecodesToTheViewWithWhatTheWaitsRead() {
        KubernetesSerialization s = Views.newSerialization();
        Object v = s.unmarshal("{\"type\":\"MODIFIED\",\"object\":" + PV + "}", WatchEvent.class).getObject();
        Views.Volume volume = assertInstanceOf(Views.Volume.class, v);
        assertEquals("pvc-1", volume.getMetadata().getName());
        assertEquals("42", volume.getMetadata().getResourceVersion());
        assertEquals("c", volume.claimIn("ns"));
        assertNull(volume.claimIn("other"));
        assertEquals("h-1", volume.handle());
        assertEquals("Released", volume.phase());
        assertTrue(volume.getMetadata().getManagedFields() == null || volume.getMetadata().getManagedFields().isEmpty());

        Object c = s.unmarshal("{\"type\":\"ADDED\",\"object\":" + PVC + "}", WatchEvent.class).getObject();
        Views.Claim claim = assertInstanceOf(Views.Claim.class, c);
        assertEquals("pvc-1", claim.boundVolume());
        assertEquals("cu", claim.getMetadata().getUid());
        assertEquals("r", claim.getMetadata().getLabels().get("l"));
        assertEquals("d", claim.getMetadata().getAnnotations().get(Waits.ANN_PROVISIONER));
        assertEquals("PersistentVolumeClaim", claim.getKind());

        // a list's items have no kind: the view's own
        Views.Volume item = s.unmarshal(PV.replace("\"kind\":\"PersistentVolume\",", ""), Views.Volume.class);
        assertEquals("PersistentVolume", item.getKind());
        assertEquals("v1", item.getApiVersion());
        // the constants each view sets are the ones its annotations declare (what fabric8 registers and requests)
        for (io.fabric8.kubernetes.api.model.HasMetadata view : java.util.List.of(new Views.Volume(), new Views.Claim())) {
            assertEquals(io.fabric8.kubernetes.api.model.HasMetadata.getKind(view.getClass()), view.getKind());
            assertEquals(io.fabric8.kubernetes.api.model.HasMetadata.getApiVersion(view.getClass()), view.getApiVersion());
        }
    }

    @Test
    void theRunClientsSerializationStillBuildsTheFullModel() {
        KubernetesSerialization s = KubeClients.serialization();
        assertInstanceOf(PersistentVolume.class, s.unmarshal("{\"type\":\"ADDED\",\"object\":" + PV + "}",
                WatchEvent.class).getObject());
        assertInstanceOf(PersistentVolumeClaim.class, s.unmarshal("{\"type\":\"ADDED\",\"object\":" + PVC + "}",
                WatchEvent.class).getObject());
    }

    /** The views' requests go through the run client's limiter and are counted; closing the run client ends them. */
    @Test
    void theViewClientSharesTheRunClientsLimiterAndCounting() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", x -> {
            seen.add(x.getRequestMethod() + " " + x.getRequestURI());
            byte[] body = ("{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeList\",\"metadata\":"
                    + "{\"resourceVersion\":\"7\"},\"items\":[" + PV.replace("\"kind\":\"PersistentVolume\",", "")
                    + "]}").getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "application/json");
            x.sendResponseHeaders(200, body.length);
            try (OutputStream o = x.getResponseBody()) {
                o.write(body);
            } catch (IOException e) {
                // the client went away
            }
        });
        server.start();
        try {
            RequestStats stats = new RequestStats("views-test", null);
            var config = new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
                    .withNamespace("ns").build();
            try (KubernetesClient client = KubeClients.client(config, RateLimiter.of(-1, 0), stats)) {
                KubernetesClient views = Views.client(client);
                List<Views.Volume> items = views.resources(Views.Volume.class).list().getItems();
                assertEquals(1, items.size());
                assertInstanceOf(Views.Volume.class, items.get(0));
                assertEquals("h-1", items.get(0).handle());
                assertEquals("PersistentVolume", items.get(0).getKind());
                assertEquals(List.of("GET /api/v1/persistentvolumes"), seen);
                assertEquals(1, stats.snapshot().total(), "the view's LIST passed the run client's interceptor");
                // a claim is namespaced: its LIST stays in the namespace (the load Role grants no more)
                views.resources(Views.Claim.class).inNamespace("ns").withLabel("l", "r").list();
                assertEquals("GET /api/v1/namespaces/ns/persistentvolumeclaims?labelSelector=l%3Dr", seen.get(1));
                assertEquals(2, stats.snapshot().total());
                client.close();
                assertTrue(views.getHttpClient().isClosed(), "the view client's connections are the run client's");
            }
        } finally {
            server.stop(0);
        }
    }

    /** Tasks handed over on an event loop run there, at once; tasks from any other thread go to the executor. */
    @Test
    void theViewClientsExecutorRunsEventLoopTasksInPlaceAndHandsOnTheRest() throws Exception {
        List<String> delegated = new CopyOnWriteArrayList<>();
        java.util.concurrent.Executor other = task -> {
            delegated.add(Thread.currentThread().getName());
            task.run();
        };
        java.util.concurrent.Executor executor = Views.inlineOnEventLoop(other);
        List<String> ran = new CopyOnWriteArrayList<>();
        executor.execute(() -> ran.add("test thread"));
        assertEquals(List.of(Thread.currentThread().getName()), delegated);
        assertEquals(List.of("test thread"), ran);

        io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
        try {
            java.util.concurrent.CompletableFuture<String> where = new java.util.concurrent.CompletableFuture<>();
            vertx.runOnContext(v -> {
                List<String> order = new java.util.ArrayList<>();
                executor.execute(() -> order.add("task on " + Thread.currentThread().getName()));
                order.add("after execute");
                where.complete(String.join(", ", order));
            });
            String order = where.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(order.matches("task on vert\\.x-eventloop-thread-\\d+, after execute"), order);
            assertEquals(1, delegated.size(), "nothing more was handed over");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
