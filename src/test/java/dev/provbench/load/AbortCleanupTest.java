package dev.provbench.load;

import dev.provbench.csi.CsiServer;
import dev.provbench.csi.DriverConfig;
import dev.provbench.csi.state.VolumeStore;
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
    CsiServer csi;
    @Inject
    DriverConfig config;
    @Inject
    VolumeStore store;

    @Test
    void abortCleansUp() throws Exception {
        csi.stop(); // the local cluster serves the driver on its own socket
        try (LocalCluster cluster = LocalCluster.start(csi, config.name(), RateLimiter.of(-1, 0),
                dev.provbench.local.StandInControllers.Reads.LISTER, java.time.Duration.ZERO, null)) {
            long volumesBefore = store.volumeCount();
            RequestStats stats = new RequestStats("test", null);
            try (KubernetesClient client = KubeClients.client(cluster.api(), RateLimiter.of(-1, 0), stats)) {
                RunConfig cfg = new RunConfig(8, Duration.ofMinutes(10), 0, Duration.ofSeconds(30), "default",
                        LocalCluster.STORAGE_CLASS, "1Gi", "ReadWriteOnce", RunConfig.WaitMode.INFORMER, -1, 0,
                        Duration.ofSeconds(1), Duration.ZERO, Duration.ofMinutes(1), Duration.ofSeconds(20),
                        Duration.ofMinutes(1));
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
                // wait until claims exist, then abort mid-run
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while ((run.log() == null || run.log().counts().creates() < 10) && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                run.abort();
                LoadRun.Outcome o = outcome.get(120, TimeUnit.SECONDS);
                assertTrue(o.aborted());
                assertTrue(run.log().counts().creates() >= 10, "measured before the abort: "
                        + run.log().counts().creates());
                assertTrue(o.window().seconds() < 600, "the window ended at the abort");
                assertTrue(o.cleanup().leftover().isEmpty(), o.cleanup().leftover().toString());
                assertEquals(0, client.persistentVolumeClaims().inNamespace("default")
                        .withLabel(RunConfig.LABEL, run.runId()).list().getItems().size());
                assertEquals(0, client.persistentVolumes().list().getItems().size());
                assertEquals(volumesBefore, store.volumeCount(), "every CreateVolume was matched by DeleteVolume");
            }
        }
    }
}
