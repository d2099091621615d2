package dev.provbench.load;

import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * What a {@link Workload} is handed: the run's settings and ID, its client and the client's request counts, the
 * waits on its list-watches, the stamps of each op's steps, the op log (every completed op and failure is recorded
 * there, in the phase it ended in), the claim writes with their retries and reaper, the stall judge (null: none),
 * and the run's signals. Other sidecars' workloads find here what they share with the claims': the client, the
 * waits' watches, the op log and the stamps.
 */
public record WorkContext(RunConfig config, String runId, KubernetesClient client, RequestStats stats, Waits waits,
                          Stamps stamps, OpLog log, ClaimOps claims, Stall stall, Signals signals) {
}
