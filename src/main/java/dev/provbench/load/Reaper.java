package dev.provbench.load;

import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Claims whose create failed but may exist (the write may land after its answer was lost, or the claim never got
 * Bound): each round, every such claim the informer shows (in poll mode: every one) gets a DELETE, so the run does
 * not leave it for the cleanup. A claim that was deleted, or did not appear in time, leaves the list.
 */
final class Reaper {
    /** How long after a failed create the reaper looks for its claim, on top of the op timeout. */
    static final Duration REAP_FOR = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final RequestStats stats;
    private final RunNamespaces namespaces;
    private final Duration opTimeout;
    /** Claims of failed creates: name → until when to look for it. */
    private final Map<String, Long> abandoned = new ConcurrentHashMap<>();
    private volatile Waits waits;
    private volatile OpLog log;

    Reaper(KubernetesClient client, RequestStats stats, RunNamespaces namespaces, Duration opTimeout) {
        this.client = client;
        this.stats = stats;
        this.namespaces = namespaces;
        this.opTimeout = opTimeout;
    }

    void use(Waits waits, OpLog log) {
        this.waits = waits;
        this.log = log;
    }

    /** The reaper deletes this claim if it exists (or appears) before {@link #REAP_FOR} has passed. */
    void abandon(String name) {
        abandoned.put(name, System.nanoTime() + REAP_FOR.toNanos() + opTimeout.toNanos());
    }

    /** One round (once a second until the cleanup); {@code stop} ends it early. */
    void round(long now, java.util.function.BooleanSupplier stop) {
        for (var it = abandoned.entrySet().iterator(); it.hasNext() && !stop.getAsBoolean(); ) {
            var e = it.next();
            if (now > e.getValue()) {
                it.remove(); // never appeared: the cleanup's final LIST has the last word
                continue;
            }
            if (!waits.shows(e.getKey())) {
                continue;
            }
            try {
                if (!client.persistentVolumeClaims().inNamespace(namespaces.ofClaim(e.getKey())).withName(e.getKey()).delete().isEmpty()) {
                    log.event(OpLog.Event.RECLAIMED);
                    it.remove();
                }
            } catch (KubernetesClientException x) {
                stats.failed(x); // try again next round
            }
        }
    }
}
