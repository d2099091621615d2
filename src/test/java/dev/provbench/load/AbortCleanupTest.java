package dev.provbench.load;

import dev.provbench.RunBounds;
import dev.provbench.csi.OwnDriver;
import dev.provbench.csi.DriverConfig;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import dev.provbench.local.LocalCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An aborted run still deletes everything it created and reports what it measured. */
@QuarkusTest
class AbortCleanupTest {
    @Inject
    DriverConfig config;

    @Test
    void abortCleansUp() throws Exception {
        // a driver of its own, which the local cluster serves on a socket of its own: its volumes are this run's
        try (OwnDriver own = OwnDriver.unstarted(config); LocalCluster cluster = LocalCluster.start(own.server,
                config.name(), RateLimiter.of(-1, 0),
                dev.provbench.local.StandInControllers.Reads.LISTER, java.time.Duration.ZERO, null)) {
            RequestStats stats = new RequestStats("test", null);
            try (KubernetesClient client = KubeClients.client(cluster.api(), RateLimiter.of(-1, 0), stats)) {
                RunConfig cfg = new RunConfig(8, Duration.ofMinutes(10), 0, Duration.ofSeconds(30), "default",
                        LocalCluster.STORAGE_CLASS, "1Gi", "ReadWriteOnce", RunConfig.WaitMode.INFORMER, -1, 0,
                        Duration.ofSeconds(1), Duration.ZERO, Duration.ofMinutes(1), Duration.ofSeconds(20),
                        Duration.ofMinutes(1), Duration.ZERO, Duration.ZERO);
                LoadRun run = new LoadRun("abort0001", cfg, client, stats, Clock.systemUTC());
                CompletableFuture<LoadRun.Outcome> outcome = CompletableFuture.supplyAsync(() -> {
                    try {
                        return run.execute(new LoadRun.Listener() {
                            public void runStart(RunWindow w, long step, int intervals) {
                            }

                            public void windowStart(RunWindow w) {
                            }

                            public void windowEnd(RunWindow w) {
                            }
                        });
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                // wait until claims exist, then abort mid-run (each worker's create is bound by the op timeout)
                long deadline = System.nanoTime() + cfg.opTimeout().multipliedBy(2).plus(RunBounds.MARGIN).toNanos();
                while ((run.log() == null || run.log().counts().creates() < 10) && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                run.abort();
                // what the run's own limits allow after an abort, not a wall-clock guess
                LoadRun.Outcome o = outcome.get(RunBounds.afterAbort(cfg).toSeconds(), TimeUnit.SECONDS);
                assertTrue(o.aborted());
                assertTrue(run.log().counts().creates() >= 10, "measured before the abort: "
                        + run.log().counts().creates());
                assertTrue(o.window().seconds() < 600, "the window ended at the abort");
                assertTrue(o.cleanup().leftover().isEmpty(), o.cleanup().leftover().toString());
                assertEquals(0, client.persistentVolumeClaims().inNamespace("default")
                        .withLabel(RunConfig.LABEL, run.runId()).list().getItems().size());
                assertEquals(0, client.persistentVolumes().list().getItems().size());
                assertTrue(own.store.volumesCreated() > 0, "the run created volumes");
                assertEquals(own.store.volumesCreated(), own.store.volumesDeleted(),
                        "every CreateVolume was matched by DeleteVolume");
                assertEquals(0, own.store.volumeCount());
            }
        }
    }
}
