import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.ListWatch;
import dev.provbench.load.RunConfig;
import dev.provbench.load.Waits;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * The tool's PV list-watch beside a population (hack/bench/beside-population, issue 49): load.Waits as a run starts
 * them (its PV watch and a claim watch), over a client built as the run's (load.KubeClients, unlimited), against the
 * cluster of $KUBECONFIG; then ROUNDS times the PV watch is made to watch from resourceVersion 1, and the watch lists
 * again. kube-apiserver answers such a watch with an ERROR event 410 ("too old resource version") once its PV watch
 * cache has dropped an event (its buffer, of at most 102,400, full of events older than 75 s: a population written
 * over minutes); before that it serves the watch from its cache, and no relist comes (this prints so and fails).
 * Prints each LIST as load.ListWatch recorded it (objects, pages, bytes, time, CPU of the threads that read it) and
 * the heap after a full GC. Args: NAMESPACE ROUNDS
 */
public class Relist {
    public static void main(String[] args) throws Exception {
        String ns = args[0];
        int rounds = Integer.parseInt(args[1]);
        var mem = ManagementFactory.getMemoryMXBean();
        try (KubernetesClient client = KubeClients.client(KubeClients.config(null), RateLimiter.of(-1, 0),
                new RequestStats("relist", null));
             Waits waits = new Waits(client, new RequestStats("relist", null), ns, "relistbench",
                     RunConfig.WaitMode.INFORMER, Duration.ofMinutes(5))) {
            ListWatch<?> pvs = waits.listWatches().get(0);
            print("first", pvs.first());
            for (int r = 1; r <= rounds; r++) {
                long before = pvs.relistCount();
                pvs.watchFrom("1");
                long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
                while (pvs.relistCount() == before && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                if (pvs.relistCount() == before) {
                    System.out.println("relist " + r + ": none within 5 minutes (no 410?)");
                    System.exit(1);
                }
                var kept = pvs.relists();
                print("relist " + r, kept.get(kept.size() - 1));
            }
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            System.out.printf("heap after a full GC: %.1f MiB%n", mem.getHeapMemoryUsage().getUsed() / 1048576.0);
        }
    }

    static void print(String what, ListWatch.Listing l) {
        System.out.printf("%s (%s): %d PVs in %d pages, %.1f MiB, %.3f s; CPU %.3f s reading, %.3f s the process%n",
                what, l.why().name().toLowerCase(), l.items(), l.pages(), l.bytes() / 1048576.0, l.seconds(),
                l.cpuNanos() / 1e9, l.processCpuNanos() / 1e9);
    }
}
