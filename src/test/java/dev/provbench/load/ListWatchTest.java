package dev.provbench.load;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.impl.BaseClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The waits' list-watch against a scripted API server on 127.0.0.1 (fabric8's mock web server, with a dispatcher of
 * the test's own): paged lists, watch events of every type over a WebSocket, a watch the server ends, a 410 that
 * relists, a refused upgrade, a first LIST that fails; the views it decodes.
 */
class ListWatchTest {
    static final String PV = "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"pvc-1\","
            + "\"uid\":\"u-1\",\"resourceVersion\":\"42\",\"annotations\":{\"a\":\"b\"},\"managedFields\":[{\"manager\":"
            + "\"m\",\"fieldsV1\":{\"f:spec\":{}}}]},\"spec\":{\"claimRef\":{\"name\":\"c\",\"namespace\":\"ns\","
            + "\"uid\":\"cu\"},\"capacity\":{\"storage\":\"1Gi\"},\"csi\":{\"driver\":\"d\",\"volumeHandle\":\"h-1\","
            + "\"volumeAttributes\":{\"volumeHandle\":\"not this\",\"driver\":\"nor this\"}},\"storageClassName\":\"sc\","
            + "\"persistentVolumeReclaimPolicy\":\"Retain\",\"nodeAffinity\":{\"required\":"
            + "{\"nodeSelectorTerms\":[]}}},\"status\":{\"phase\":\"Released\"}}";
    static final String PVC = "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\","
            + "\"namespace\":\"ns\",\"uid\":\"cu\",\"resourceVersion\":\"41\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\","
            + "\"labels\":{\"other\":\"x\",\"l\":\"r\"},\"annotations\":{\"volume.kubernetes.io/storage-provisioner\":"
            + "\"d\"}},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":\"1Gi\"}},"
            + "\"volumeName\":\"pvc-1\"},\"status\":{\"phase\":\"Bound\",\"capacity\":{\"storage\":\"1Gi\"}}}";

    @Test
    void theViewsKeepWhatTheWaitsReadAndSkipTheRest() throws IOException {
        JsonFactory json = new JsonFactory();
        try (JsonParser p = json.createParser(PV)) {
            p.nextToken();
            Views.Volume v = Views.volume(p);
            assertEquals(new Views.Volume("pvc-1", "42", "ns", "c", "h-1", "Released", "sc", "d", "Retain"), v);
            assertNull(p.nextToken(), "the parser is at the object's end");
        }
        try (JsonParser p = json.createParser(PVC)) {
            p.nextToken();
            Views.Claim c = Views.claim(p, "l");
            assertEquals(new Views.Claim("c", "cu", "41", true, "r", true, "pvc-1", "Bound"), c);
            assertEquals("pvc-1", c.boundVolume());
        }
        String pending = "{\"metadata\":{\"name\":\"c\",\"labels\":null,\"annotations\":{}},\"spec\":{\"volumeName\":"
                + "\"\"},\"status\":{\"phase\":\"Pending\"}}";
        try (JsonParser p = json.createParser(pending)) {
            p.nextToken();
            Views.Claim c = Views.claim(p, "l");
            assertEquals(new Views.Claim("c", null, null, false, null, false, "", "Pending"), c);
            assertNull(c.boundVolume());
        }
    }

    /**
     * One scripted answer: a status and a body for a LIST; for a WATCH, the events sent over the WebSocket (a
     * status other than 200 refuses the upgrade), after which the server closes it or holds it open.
     */
    record Answer(int code, List<String> lines, boolean hold) {
        static Answer of(String... lines) {
            return new Answer(200, List.of(lines), false);
        }

        static Answer holding(String... lines) {
            return new Answer(200, List.of(lines), true);
        }
    }

    private MockWebServer server;
    private final BlockingQueue<Answer> lists = new LinkedBlockingQueue<>();
    private final BlockingQueue<Answer> watches = new LinkedBlockingQueue<>();
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final List<Long> seenAt = new CopyOnWriteArrayList<>();
    /** When set, the next watch request's answer (its upgrade) waits until the latch opens. */
    private final AtomicReference<CountDownLatch> holdNextWatch = new AtomicReference<>();
    private KubernetesClient client;
    private RequestStats stats;

    @BeforeEach
    void serve() {
        server = new MockWebServer();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest r) {
                String path = r.getPath();
                seenAt.add(System.nanoTime());
                seen.add(path);
                boolean watch = path.contains("watch=true");
                CountDownLatch hold = watch ? holdNextWatch.getAndSet(null) : null;
                if (hold != null) { // the upgrade's answer waits for the test (bounded)
                    try {
                        hold.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                Answer a = (watch ? watches : lists).poll();
                if (a == null) {
                    return new MockResponse().setResponseCode(500).setBody("{}");
                }
                if (!watch || a.code != 200) {
                    return new MockResponse().setResponseCode(a.code).setBody(String.join("\n", a.lines));
                }
                return new MockResponse().withWebSocketUpgrade(new WebSocketListener() {
                    @Override
                    public void onOpen(WebSocket ws, Response response) {
                        for (String line : a.lines) {
                            ws.send(line);
                        }
                        if (!a.hold) {
                            ws.close(1000, "");
                        }
                    }
                });
            }
        });
        server.start(InetAddress.getLoopbackAddress(), 0);
        stats = new RequestStats("list-watch-test", null);
        var config = new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + server.getPort())
                .withNamespace("ns").build();
        client = KubeClients.client(config, RateLimiter.of(-1, 0), stats);
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdown();
    }

    static String pv(String name, String rv, String phase) {
        return "{\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"" + name + "\",\"resourceVersion\":\"" + rv
                + "\"},\"spec\":{\"csi\":{\"volumeHandle\":\"h-" + name + "\"}},\"status\":{\"phase\":\"" + phase
                + "\"}}";
    }

    static String list(String rv, String cont, String... items) {
        return "{\"kind\":\"PersistentVolumeList\",\"metadata\":{\"resourceVersion\":\"" + rv + "\""
                + (cont == null ? "" : ",\"continue\":\"" + cont + "\"") + "},\"items\":[" + String.join(",", items)
                + "]}";
    }

    static String event(String type, String object) {
        return "{\"type\":\"" + type + "\",\"object\":" + object + "}";
    }

    /** What the handler saw, in order, and a ListWatch of volumes over the test's client. */
    private final List<String> handled = new CopyOnWriteArrayList<>();

    private ListWatch<Views.Volume> volumes() {
        return new ListWatch<>(client.getHttpClient(), client.getMasterUrl().toString().replaceAll("/+$", "")
                + "/api/v1/persistentvolumes", null, Views::volume, new ListWatch.Handler<>() {
                    public void appeared(Views.Volume v) {
                        handled.add("appeared " + v.name());
                    }

                    public void changed(Views.Volume v) {
                        handled.add("changed " + v.name() + "@" + v.resourceVersion() + " " + v.phase());
                    }

                    public void deleted(Views.Volume v) {
                        handled.add("deleted " + v.name() + "@" + v.resourceVersion());
                    }
                }, client.adapt(BaseClient.class).getExecutor());
    }

    private static void await(BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for: " + what);
            Thread.sleep(10);
        }
    }

    @Test
    void listsInPagesWatchesFromTheListAndFollowsEveryKindOfEvent() throws Exception {
        lists.add(Answer.of(list("10", "next page", pv("a", "5", "Bound"))));
        lists.add(Answer.of(list("10", null, pv("b", "6", "Bound"))));
        watches.add(Answer.of(
                event("ADDED", pv("c", "11", "Pending")),
                event("MODIFIED", pv("a", "12", "Released")),
                // kube-apiserver writes the type first; an event with its object first is read all the same
                "{\"object\":" + pv("c", "13", "Bound") + ",\"type\":\"MODIFIED\"}",
                event("DELETED", pv("b", "14", "Released")),
                event("BOOKMARK", "{\"kind\":\"PersistentVolume\",\"metadata\":{\"resourceVersion\":\"20\"}}")));
        // the server ended that watch (its timeout): the next starts from the bookmark's version
        watches.add(Answer.holding(event("ERROR", "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Expired\","
                + "\"code\":410}")));
        // 410: listed again; "c" is no longer there, "d" is new
        lists.add(Answer.of(list("40", null, pv("a", "30", "Released"), pv("d", "31", "Available"))));
        watches.add(Answer.holding(event("MODIFIED", pv("d", "41", "Bound"))));

        try (ListWatch<Views.Volume> lw = volumes()) {
            lw.start().get(10, TimeUnit.SECONDS);
            await(() -> handled.contains("changed d@41 Bound"), "the last watch's event");
            // appeared: once per object the cache did not have — first listed, ADDED, or new on the relist
            assertEquals(List.of(
                    "appeared a", "changed a@5 Bound", "appeared b", "changed b@6 Bound",
                    "appeared c", "changed c@11 Pending", "changed a@12 Released", "changed c@13 Bound", "deleted b@14",
                    "changed a@30 Released", "appeared d", "changed d@31 Available", "deleted c@13",
                    "changed d@41 Bound"), handled);
            assertEquals("41", lw.resourceVersion());
            assertEquals("Released", lw.get("a").phase());
            assertEquals("Bound", lw.get("d").phase());
            assertNull(lw.get("b"));
            assertNull(lw.get("c"));
        }
        List<String> requests = new ArrayList<>();
        for (String s : seen) {
            requests.add(s.replaceAll("timeoutSeconds=\\d+", "timeoutSeconds=T"));
        }
        String watch = "/api/v1/persistentvolumes?watch=true&allowWatchBookmarks=true&timeoutSeconds=T&resourceVersion=";
        assertEquals(List.of(
                "/api/v1/persistentvolumes?limit=500",
                "/api/v1/persistentvolumes?limit=500&continue=next+page",
                watch + "10", watch + "20",
                "/api/v1/persistentvolumes?limit=500",
                watch + "40"), requests);
        for (String s : seen) {
            int t = s.indexOf("timeoutSeconds=");
            if (t >= 0) {
                int seconds = Integer.parseInt(s.substring(t + 15, s.indexOf('&', t)));
                assertTrue(seconds >= 300 && seconds < 600, s);
            }
        }
        Map<String, Long> byVerb = new TreeMap<>(stats.snapshot().byVerbResource());
        assertEquals(Map.of("list persistentvolumes", 3L, "watch persistentvolumes", 3L), byVerb,
                "every request went through the run client's interceptor and was counted");
    }

    @Test
    void aFirstListThatFailsFailsTheStartAndSendsNothingMore() throws Exception {
        lists.add(new Answer(403, List.of("{\"kind\":\"Status\",\"code\":403}"), false));
        try (ListWatch<Views.Volume> lw = volumes()) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> lw.start().get(10, TimeUnit.SECONDS));
            KubernetesClientException k = assertInstanceOf(KubernetesClientException.class, e.getCause());
            assertEquals(403, k.getCode());
            assertFalse(k.getMessage().contains("Status"), "no answer's content in the message");
        }
        Thread.sleep(200);
        assertEquals(1, seen.size(), seen.toString());
        assertTrue(handled.isEmpty());
    }

    @Test
    void aWatchThatFailsIsSentAgainFromTheLastVersionAfterAPause() throws Exception {
        lists.add(Answer.of(list("10", null, pv("a", "5", "Bound"))));
        watches.add(new Answer(500, List.of("{}"), false)); // the upgrade refused
        watches.add(Answer.of("not json"));
        watches.add(Answer.of()); // closed at once without an event: a failure too, not a tight loop
        watches.add(Answer.holding(event("DELETED", pv("a", "12", "Released"))));
        try (ListWatch<Views.Volume> lw = volumes()) {
            lw.start().get(10, TimeUnit.SECONDS);
            await(() -> handled.contains("deleted a@12"), "the fourth watch's event");
            assertNull(lw.get("a"));
        }
        assertEquals(5, seen.size(), seen.toString());
        for (int i = 1; i < 5; i++) {
            assertTrue(seen.get(i).endsWith("resourceVersion=10"), seen.get(i));
        }
        // client-go's backoff: 0.8 s, then 1.6 s, then 3.2 s (lower bounds only: a busy machine is only slower)
        long[] pauses = {800, 1600, 3200};
        for (int i = 0; i < 3; i++) {
            long ms = TimeUnit.NANOSECONDS.toMillis(seenAt.get(i + 2) - seenAt.get(i + 1));
            assertTrue(ms >= pauses[i] - 50, "pause " + i + ": " + ms + " ms");
        }
        assertEquals(List.of("appeared a", "changed a@5 Bound", "deleted a@12"), handled);
    }

    @Test
    void aWatchRefusedAsGoneListsAgainAndCloseEndsEverything() throws Exception {
        lists.add(Answer.of(list("10", null, pv("a", "5", "Bound"))));
        watches.add(new Answer(410, List.of("{\"kind\":\"Status\",\"code\":410}"), false));
        lists.add(Answer.of(list("50", null)));
        watches.add(Answer.holding());
        try (ListWatch<Views.Volume> lw = volumes()) {
            lw.start().get(10, TimeUnit.SECONDS);
            await(() -> seen.size() == 4, "the second watch");
            await(() -> handled.contains("deleted a@5"), "the relist's deletion");
            assertEquals("50", lw.resourceVersion());
        }
        Thread.sleep(300);
        assertEquals(4, seen.size(), "nothing is sent after close: " + seen);
        assertTrue(seen.get(3).endsWith("resourceVersion=50"), seen.get(3));
    }

    @Test
    void watchFromEndsTheWatchEvenBeforeItOpensAndAnErrorEventGoneListsAgain() throws Exception {
        lists.add(Answer.of(list("10", null, pv("a", "5", "Bound"))));
        // the first watch, told to end perhaps before it opened: its bookmark must not move the version asked for
        watches.add(Answer.holding(
                event("BOOKMARK", "{\"kind\":\"PersistentVolume\",\"metadata\":{\"resourceVersion\":\"20\"}}")));
        // as kube-apiserver answers a watch from a version its watch cache no longer holds: 200, then ERROR 410
        watches.add(Answer.holding(event("ERROR", "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":"
                + "\"too old resource version: 1 (335)\",\"reason\":\"Expired\",\"code\":410}")));
        lists.add(Answer.of(list("60", null, pv("a", "5", "Bound"))));
        watches.add(Answer.holding());
        CountDownLatch upgrade = new CountDownLatch(1);
        holdNextWatch.set(upgrade);
        try (ListWatch<Views.Volume> lw = volumes()) {
            lw.start().get(10, TimeUnit.SECONDS);
            await(() -> seen.size() == 2, "the first watch's request");
            lw.watchFrom("1"); // its upgrade not answered yet
            upgrade.countDown();
            await(() -> seen.size() == 5, "the relist's watch");
            assertTrue(seen.get(1).endsWith("resourceVersion=10"), seen.get(1));
            assertTrue(seen.get(2).endsWith("resourceVersion=1"), seen.get(2));
            assertTrue(seen.get(4).endsWith("resourceVersion=60"), seen.get(4));
            await(() -> lw.relistCount() == 1, "the relist counted");
            assertEquals(ListWatch.Why.GONE, lw.relists().get(0).why());
            assertEquals(1, lw.relists().get(0).items());
        }
    }
}
