package dev.provbench.load;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run checks before its first request, so that a run that cannot work fails in seconds naming the
 * missing thing instead of timing out every operation: the namespace exists and a claim may be created in it
 * (a server-side dry run: admission included, nothing stored); the StorageClass exists; the tool may delete,
 * list and watch its claims and list and watch PVs (SelfSubjectAccessReview). Also fatal, because no create could
 * complete or every cycle's would be refused: a StorageClass without a provisioner
 * ({@code kubernetes.io/no-provisioner}) or with {@code volumeBindingMode: WaitForFirstConsumer} (a run creates
 * no pods) or with a {@code reclaimPolicy} other than Delete (its PVs outlive their claims: no delete could
 * complete, and each cycle would leave a PV and a volume), and a ResourceQuota that leaves room for fewer than
 * {@code threads} claims (or their storage).
 * Warnings, not failures: no CSIDriver object for the StorageClass's provisioner, and anything the tool may not
 * read to check. It also finds claims of earlier runs left in the namespace. A run spread over namespaces
 * ({@link RunNamespaces}) is checked in each; one that does not exist must be one the tool may make (a dry-run
 * create of the Namespace) and list and delete afterwards. Whether a provisioner serves the
 * driver cannot be read in advance (its leader Lease, if any, is in a namespace the run does not know); the run
 * tells it as soon as it shows ({@link Stall}).
 */
public final class Preflight {
    /** The provisioner of StorageClasses for PersistentVolumes made by hand. */
    static final String NO_PROVISIONER = "kubernetes.io/no-provisioner";

    /**
     * A run whose newest claim is younger than this may still be running (a run at csi-provisioner's defaults makes
     * a claim every second or two): {@code --cleanup-stale} leaves its claims alone.
     */
    public static final java.time.Duration ACTIVE_WITHIN = java.time.Duration.ofMinutes(2);

    /**
     * @param fatal      why the run cannot work, or null
     * @param warnings   what could not be checked or looks wrong but need not be
     * @param staleRuns  claims of other runs in the namespace, by run ID
     * @param newest     per run of {@code staleRuns}, how old its newest claim is (seconds; the API server's clock
     *                   against this one's, so only coarse), when known
     */
    public record Result(String fatal, List<String> warnings, Map<String, Integer> staleRuns, String provisioner,
                         Map<String, Long> newest) {
        Result(String fatal, List<String> warnings, Map<String, Integer> staleRuns, String provisioner) {
            this(fatal, warnings, staleRuns, provisioner, Map.of());
        }

        public int staleClaims() {
            return staleRuns.values().stream().mapToInt(Integer::intValue).sum();
        }

        /** Other runs that may still be running: their newest claim is younger than {@link #ACTIVE_WITHIN}. */
        public java.util.Set<String> active() {
            java.util.Set<String> out = new java.util.TreeSet<>();
            newest.forEach((run, age) -> {
                if (age < ACTIVE_WITHIN.toSeconds()) {
                    out.add(run);
                }
            });
            return out;
        }
    }

    private Preflight() {
    }

    public static Result check(KubernetesClient client, RunConfig config, String runId) {
        List<String> warnings = new ArrayList<>();
        RunNamespaces spread = RunNamespaces.of(config);
        List<String> missing = new ArrayList<>();
        String[] provisioner = new String[1];
        try {
            String fatal = null;
            for (String ns : spread.names()) {
                fatal = fatal != null ? fatal : dryRunCreate(client, config, ns, runId, spread.count() > 1 ? missing : null);
            }
            if (fatal == null && config.population() != null && spread.count() > 1) {
                fatal = dryRunCreate(client, config, spread.base(), runId, null);
            }
            if (fatal == null && !missing.isEmpty()) {
                fatal = mayMake(client, missing, runId, warnings);
            }
            if (fatal == null) {
                fatal = storageClass(client, config.storageClass(), warnings, provisioner);
            }
            List<String> existing = spread.names().stream().filter(n -> !missing.contains(n)).toList();
            for (String ns : existing) {
                fatal = fatal != null ? fatal : access(client, ns, config.waitMode(), warnings);
            }
            for (String ns : existing) {
                fatal = fatal != null ? fatal : quotas(client, config, ns, spread.count(), warnings);
            }
            Map<String, Integer> stale = new TreeMap<>();
            Map<String, Long> newest = new TreeMap<>();
            java.time.Instant now = java.time.Instant.now();
            for (String ns : fatal == null ? existing : List.<String>of()) {
                for (PersistentVolumeClaim c : client.persistentVolumeClaims().inNamespace(ns)
                        .withLabel(RunConfig.LABEL).list().getItems()) {
                    String id = c.getMetadata().getLabels().get(RunConfig.LABEL);
                    if (!runId.equals(id)) {
                        stale.merge(id, 1, Integer::sum);
                        String created = c.getMetadata().getCreationTimestamp();
                        if (created != null) {
                            try {
                                long age = java.time.Duration.between(java.time.Instant.parse(created), now)
                                        .toSeconds();
                                newest.merge(id, age, Math::min);
                            } catch (java.time.format.DateTimeParseException e) {
                                // not the API server's format: its age is not known
                            }
                        }
                    }
                }
            }
            return new Result(fatal, warnings, stale, provisioner[0], newest);
        } catch (KubernetesClientException e) {
            return new Result("the cluster at " + client.getMasterUrl() + " did not answer: " + ApiErrors.describe(e),
                    warnings, Map.of(), provisioner[0]);
        }
    }

    /**
     * A claim like the run's, created with dry run in {@code ns}; with {@code missing} non-null (a run spread over
     * namespaces it may make), a namespace that does not exist is added there instead of being fatal.
     */
    private static String dryRunCreate(KubernetesClient client, RunConfig config, String ns, String runId,
            List<String> missing) {
        PersistentVolumeClaim claim = new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName("pb-" + runId + "-preflight").withNamespace(ns)
                .addToLabels(RunConfig.LABEL, runId).endMetadata()
                .withNewSpec().withStorageClassName(config.storageClass()).withAccessModes(config.accessMode())
                .withNewResources().addToRequests("storage", new Quantity(config.size())).endResources()
                .endSpec().build();
        try {
            client.persistentVolumeClaims().inNamespace(ns).resource(claim).dryRun().create();
            return null;
        } catch (KubernetesClientException e) {
            if (e.getCode() <= 0) { // no HTTP answer (fabric8 says 0 or -1): the cluster is not reachable
                throw e;
            }
            if (e.getCode() == 404 && missing != null) {
                missing.add(ns);
                return null;
            }
            return switch (e.getCode()) {
                case 404 -> "namespace '" + ns + "' does not exist";
                case 403 -> "this identity may not create PersistentVolumeClaims in namespace '"
                        + ns + "' (RBAC): " + reason(e);
                default -> "a claim like the run's is refused in namespace '" + ns + "' (HTTP "
                        + e.getCode() + "): " + reason(e);
            };
        }
    }

    /**
     * The namespaces the run will make ({@link RunNamespaces#create}): the first made with dry run (admission
     * included), and the rights to list and delete them afterwards.
     */
    private static String mayMake(KubernetesClient client, List<String> missing, String runId, List<String> warnings) {
        String first = missing.get(0);
        String which = missing.size() == 1 ? "namespace '" + first + "' does not exist"
                : missing.size() + " of the run's namespaces do not exist ('" + first + "', …)";
        try {
            client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                    .withName(first).addToLabels(RunConfig.LABEL, runId).endMetadata().build()).dryRun().create();
        } catch (KubernetesClientException e) {
            if (e.getCode() <= 0) {
                throw e;
            }
            return which + ", and the run may not make it (HTTP " + e.getCode() + (e.getCode() == 403
                    ? ", RBAC: create namespaces" : "") + "): " + reason(e) + "; make them, or grant that right";
        }
        List<String[]> needed = List.of(new String[]{"list", "namespaces", null},
                new String[]{"delete", "namespaces", null});
        String denied = review(client, needed, warnings);
        return denied == null ? null : which + ": the run would make it, but this identity may not " + denied
                + " to remove it afterwards (RBAC)";
    }

    private static String storageClass(KubernetesClient client, String name, List<String> warnings,
                                       String[] provisionerOut) {
        StorageClass sc;
        try {
            sc = client.storage().v1().storageClasses().withName(name).get();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 403) {
                warnings.add("cannot read StorageClass '" + name + "' (RBAC: get storageclasses), so its existence "
                        + "was not checked");
                return null;
            }
            throw e;
        }
        if (sc == null) {
            return "StorageClass '" + name + "' does not exist (--storage-class)";
        }
        String provisioner = sc.getProvisioner();
        provisionerOut[0] = provisioner;
        if (NO_PROVISIONER.equals(provisioner)) {
            return "StorageClass '" + name + "' has no provisioner (" + NO_PROVISIONER + "): its claims bind only to "
                    + "PersistentVolumes made by hand, so no create would complete";
        }
        if ("WaitForFirstConsumer".equals(sc.getVolumeBindingMode())) {
            return "StorageClass '" + name + "' has volumeBindingMode WaitForFirstConsumer: its claims are "
                    + "provisioned only once a pod that uses them is scheduled, and a run creates no pods; use a "
                    + "StorageClass with volumeBindingMode Immediate for the same driver";
        }
        String policy = sc.getReclaimPolicy() == null || sc.getReclaimPolicy().isEmpty() ? "Delete"
                : sc.getReclaimPolicy();
        if (!"Delete".equals(policy)) {
            return "StorageClass '" + name + "' has reclaimPolicy " + policy + ": csi-provisioner deletes a PV (and "
                    + "calls DeleteVolume) only when its reclaim policy is Delete, so the PV of every deleted claim "
                    + "would stay Released with its volume, no delete of the run could complete, and every cycle "
                    + "would leave a PV and a volume behind; use a StorageClass of the same provisioner ("
                    + provisioner + ") with reclaimPolicy Delete";
        }
        try {
            if (client.storage().v1().csiDrivers().withName(provisioner).get() == null) {
                warnings.add("no CSIDriver object '" + provisioner + "' (the provisioner of StorageClass '" + name
                        + "'): if it is not a CSI driver's, or its driver is not deployed, claims will stay Pending");
            }
        } catch (KubernetesClientException e) {
            if (e.getCode() != 403) {
                throw e;
            }
            warnings.add("cannot read CSIDriver '" + provisioner + "' (RBAC: get csidrivers), so it was not checked");
        }
        return null;
    }

    /**
     * The namespace's ResourceQuotas against what the run holds at once: {@code threads} claims of {@code size}
     * (more for a moment while deleted claims go). Room for fewer is fatal: the creates past it would be refused
     * every cycle, and the run would measure the quota.
     */
    private static String quotas(KubernetesClient client, RunConfig config, String ns, int spread,
            List<String> warnings) {
        List<ResourceQuota> quotas;
        // what one namespace holds at once: a churn run's workers' claims, a bulk run's whole wave, spread evenly
        long held = "bulk".equals(config.mode()) ? config.count() : config.threads();
        long here = (held + spread - 1) / spread;
        String holds = "bulk".equals(config.mode()) ? here + " claims (--count " + held
                + (spread > 1 ? " over " + spread + " namespaces" : "") + ")" : here + " claims (--threads"
                + (spread > 1 ? " over " + spread + " namespaces" : "") + ")";
        try {
            quotas = client.resourceQuotas().inNamespace(ns).list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 403) {
                throw e;
            }
            warnings.add("cannot list ResourceQuotas in namespace '" + ns + "' (RBAC: list "
                    + "resourcequotas), so whether one leaves room for " + here + " claims was not checked");
            return null;
        }
        String perClass = config.storageClass() + ".storageclass.storage.k8s.io/";
        BigDecimal claims = BigDecimal.valueOf(here);
        BigDecimal bytes = Quantity.getAmountInBytes(new Quantity(config.size())).multiply(claims);
        for (ResourceQuota q : quotas) {
            // status.hard and status.used are the quota controller's; before it has counted (or without one),
            // spec.hard is the limit and nothing is known used
            // (fabric8's model gives an empty map for a missing one)
            Map<String, Quantity> hard = q.getStatus() != null && q.getStatus().getHard() != null
                    && !q.getStatus().getHard().isEmpty() ? q.getStatus().getHard()
                    : q.getSpec() == null ? null : q.getSpec().getHard();
            if (hard == null || hard.isEmpty()) {
                continue;
            }
            Map<String, Quantity> used = q.getStatus() == null || q.getStatus().getUsed() == null ? Map.of()
                    : q.getStatus().getUsed();
            for (String key : List.of("persistentvolumeclaims", "count/persistentvolumeclaims",
                    perClass + "persistentvolumeclaims", "requests.storage", perClass + "requests.storage")) {
                Quantity h = hard.get(key);
                if (h == null) {
                    continue;
                }
                BigDecimal room = Quantity.getAmountInBytes(h).subtract(used.containsKey(key)
                        ? Quantity.getAmountInBytes(used.get(key)) : BigDecimal.ZERO);
                boolean count = key.endsWith("persistentvolumeclaims");
                BigDecimal need = count ? claims : bytes;
                if (room.compareTo(need) < 0) {
                    return "ResourceQuota '" + q.getMetadata().getName() + "' in namespace '" + ns
                            + "' leaves room for " + (count ? room.max(BigDecimal.ZERO).toPlainString() + " more claims"
                            : room.max(BigDecimal.ZERO).toPlainString() + " more bytes of storage")
                            + " (" + key + ": hard " + h + ", used " + used.getOrDefault(key, new Quantity("0"))
                            + "), but the run holds up to " + holds + (count ? "" : " × " + config.size()
                            + " (--size)") + " there at once: the creates past it would be refused";
                }
            }
        }
        return null;
    }

    private static String access(KubernetesClient client, String ns, RunConfig.WaitMode mode, List<String> warnings) {
        List<String[]> needed = new ArrayList<>(List.of(
                new String[]{"delete", "persistentvolumeclaims", ns}, new String[]{"list", "persistentvolumeclaims", ns},
                new String[]{"watch", "persistentvolumeclaims", ns}, new String[]{"list", "persistentvolumes", null},
                new String[]{"watch", "persistentvolumes", null}));
        if (mode == RunConfig.WaitMode.POLL) {
            needed.add(new String[]{"get", "persistentvolumeclaims", ns});
        }
        String denied = review(client, needed, warnings);
        return denied == null ? null : "this identity may not " + denied + " (RBAC; "
                + "kubernetes/base/rbac-load.yaml has what a run needs)";
    }

    /** What of {@code needed} (verb, resource, namespace or null) this identity may not do, or null. */
    private static String review(KubernetesClient client, List<String[]> needed, List<String> warnings) {
        List<String> denied = new ArrayList<>();
        for (String[] n : needed) {
            SelfSubjectAccessReview review = new SelfSubjectAccessReviewBuilder().withNewSpec()
                    .withResourceAttributes(new ResourceAttributesBuilder().withVerb(n[0]).withResource(n[1])
                            .withNamespace(n[2]).build())
                    .endSpec().build();
            try {
                SelfSubjectAccessReview answer = client.authorization().v1().selfSubjectAccessReview()
                        .create(review);
                if (answer.getStatus() == null || !Boolean.TRUE.equals(answer.getStatus().getAllowed())) {
                    denied.add(n[0] + " " + n[1] + (n[2] == null ? "" : " in namespace '" + n[2] + "'"));
                }
            } catch (KubernetesClientException e) {
                if (e.getCode() <= 0) {
                    throw e;
                }
                String w = "cannot ask what this identity may do (SelfSubjectAccessReview: HTTP " + e.getCode()
                        + "), so its rights were not checked";
                if (!warnings.contains(w)) {
                    warnings.add(w);
                }
                return null;
            }
        }
        return denied.isEmpty() ? null : String.join(", ", denied);
    }

    private static String reason(KubernetesClientException e) {
        return e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                : String.valueOf(e.getMessage());
    }
}
