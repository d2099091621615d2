package dev.provbench.load;

import dev.provbench.csi.OwnDriver;
import dev.provbench.csi.DriverConfig;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import dev.provbench.local.LocalCluster;
import dev.provbench.local.StandInControllers;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lost answers are reconciled: a create whose answer was lost (connection dropped, or a 504) after the server
 * created the claim is adopted; a create refused before the server saw it is a failure with its precise cause;
 * a create whose request was lost on a broken connection is sent again; a refused DELETE is sent again. Every
 * attempt has one outcome, so {@code byCode} sums to {@code total}.
 */
@QuarkusTest
class ReconcileTest {
    private static final String CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims";

    @Inject
    DriverConfig config;

    @Test
    void lostAnswersAreReconciledAndEveryAttemptHasAnOutcome() throws Exception {
        // a driver of its own, which the local cluster serves on a socket of its own: its volumes are this run's
        try (OwnDriver own = OwnDriver.unstarted(config); LocalCluster cluster = LocalCluster.start(own.server,
                config.name(), RateLimiter.of(-1, 0),
                StandInControllers.Reads.LISTER, Duration.ZERO, null)) {
            int apiPort = URI.create(cluster.api().getMasterUrl()).getPort();
            AtomicInteger deletes = new AtomicInteger();
            FaultyProxy.Rule rule = (method, path, seen) -> {
                if ("POST".equals(method) && path.startsWith(CLAIMS)) {
                    return switch (seen) {
                        case 2, 6 -> FaultyProxy.Action.DROP_ANSWER; // created, answer lost
                        case 4 -> FaultyProxy.Action.ANSWER_504; // created, then a 504
                        case 8 -> FaultyProxy.Action.REFUSE_503; // never reached the server
                        case 10 -> FaultyProxy.Action.DROP_REQUEST; // lost on its way: sent again, created
                        default -> FaultyProxy.Action.PASS;
                    };
                }
                if ("DELETE".equals(method) && path.startsWith(CLAIMS + "/")
                        && (deletes.incrementAndGet() == 3 || deletes.get() == 5)) {
                    return FaultyProxy.Action.REFUSE_503;
                }
                return FaultyProxy.Action.PASS;
            };
            RequestStats stats = new RequestStats("test", null);
            try (FaultyProxy proxy = new FaultyProxy(apiPort, rule)) {
                Config via = new ConfigBuilder(cluster.api()).withMasterUrl("http://127.0.0.1:" + proxy.port())
                        .build();
                try (KubernetesClient client = KubeClients.client(via, RateLimiter.of(-1, 0), stats)) {
                    RunConfig cfg = new RunConfig(2, Duration.ofMinutes(10), 16, Duration.ofSeconds(30), "default",
                            LocalCluster.STORAGE_CLASS, "1Gi", "ReadWriteOnce", RunConfig.WaitMode.INFORMER, -1, 0,
                            Duration.ofSeconds(1), Duration.ZERO, Duration.ofMinutes(1), Duration.ofSeconds(20),
                            Duration.ofMinutes(1), Duration.ZERO, Duration.ZERO);
                    LoadRun run = new LoadRun("recon0001", cfg, client, stats, Clock.systemUTC());
                    int[] epoch = new int[1];
                    LoadRun.Outcome o = run.execute(new LoadRun.Listener() {
                        public void runStart(RunWindow w, long step, int intervals) {
                        }

                        public void windowStart(RunWindow w) {
                            epoch[0] = stats.beginEpoch();
                        }

                        public void windowEnd(RunWindow w) {
                            stats.beginEpoch();
                        }
                    });
                    OpLog.Counts c = run.log().counts();
                    assertEquals(2, proxy.count(FaultyProxy.Action.DROP_ANSWER));
                    assertEquals(1, proxy.count(FaultyProxy.Action.ANSWER_504));
                    assertEquals(3, proxy.count(FaultyProxy.Action.REFUSE_503));
                    assertEquals(3, c.recovered(), "two dropped answers and one 504, all adopted: " + c);
                    assertEquals(Map.of("create:http-5xx", 1L), c.failuresByCause(), c.toString());
                    assertEquals(1, proxy.count(FaultyProxy.Action.DROP_REQUEST));
                    assertEquals(1, c.createRetries(), "the lost POST was sent again: " + c);
                    assertEquals(2, c.deleteRetries(), c.toString());
                    assertEquals(c.creates(), c.deletes(), "every created claim was deleted in its cycle: " + c);
                    assertTrue(o.cleanup().leftover().isEmpty(), o.cleanup().leftover().toString());
                    assertEquals(0, o.cleanup().deletedClaims(), "nothing was left for the cleanup to delete");
                    // one record per completed op, the four creates whose first answer was lost included: each
                    // flagged, without an "answered" stamp, and its claim's delete recorded too
                    java.util.List<Stamps.Op> ops = run.stamps().finished();
                    assertEquals(c.creates() + c.deletes() + c.completedInWarmup() + c.completedAfterWindow(),
                            ops.size(), ops.size() + " records for " + c);
                    java.util.List<Stamps.Op> lost = ops.stream().filter(Stamps.Op::answerLost).toList();
                    assertEquals(4, lost.size(), "three adopted, one sent again: " + lost);
                    for (Stamps.Op op : lost) {
                        assertTrue(op.create() && op.at()[Stamps.ANSWERED] == 0 && op.at()[Stamps.START] > 0
                                && op.at()[Stamps.SENT] >= op.at()[Stamps.START] && op.at()[Stamps.END] > 0,
                                java.util.Arrays.toString(op.at()));
                        assertTrue(op.key() != null && op.key().startsWith("pvc-"), "its UID is known: " + op.key());
                        assertEquals(1, ops.stream().filter(d -> !d.create() && d.claim().equals(op.claim())).count(),
                                "its delete has its record: " + op.claim());
                    }
                    assertEquals(0, ops.stream().filter(x -> !x.create() && x.answerLost()).count());

                    RequestStats.Snapshot window = stats.epoch(epoch[0]);
                    long sum = window.byCode().values().stream().mapToLong(Long::longValue).sum();
                    assertEquals(window.total(), sum, "byCode sums to total: " + window);
                    assertEquals(3L, window.byCode().get("connection-error"), window.byCode().toString());
                    assertEquals(1L, window.byCode().get("504"), window.byCode().toString());
                    assertEquals(3L, window.byCode().get("503"), window.byCode().toString());
                    RequestStats.Snapshot all = stats.snapshot();
                    assertEquals(all.total(), all.byCode().values().stream().mapToLong(Long::longValue).sum(),
                            all.toString());
                }
            }
            assertTrue(own.store.volumesCreated() > 0, "the run created volumes");
                assertEquals(own.store.volumesCreated(), own.store.volumesDeleted(),
                        "every CreateVolume was matched by DeleteVolume");
                assertEquals(0, own.store.volumeCount());
        }
    }
}
