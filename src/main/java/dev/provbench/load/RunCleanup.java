package dev.provbench.load;

import dev.provbench.kube.Paged;
import dev.provbench.util.Durations;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes what load runs created, bounded by a deadline and honest about what stays: the claims carrying
 * the run label ({@link RunConfig#LABEL}; one run's, or every run's) are deleted, and their PersistentVolumes
 * — bound ones, and the ones made for claims deleted before they were bound — are waited for until gone
 * (csi-provisioner deletes the PV after the driver's DeleteVolume, so a PV gone means its volume is too).
 * Every round LISTs the claims and the PVs again, so a claim whose create was still in flight, or a PV
 * made after its claim was deleted, is found too; an apiserver that does not answer only costs rounds
 * (with backoff) until the deadline. What remains comes from a final LIST, never from a guess: if that
 * cannot be made, the objects last seen are reported with that reason, and an unknown state is an entry of
 * its own — the list is empty only when the cluster said nothing is left. A run spread over namespaces
 * ({@link RunNamespaces}) is cleaned in each, and the namespaces it made are deleted last, once nothing of the
 * run is in them, and waited for; one that holds claims of others is kept and named.
 */
public final class RunCleanup {
    /** Names of the claims runs make: {@code pb-<run id>-<sequence>}. */
    public static final Pattern CLAIM_NAME = Pattern.compile("pb-([a-z0-9]+)-[0-9]+");

    /** An object that is still there (or whose state is unknown), and why. */
    public record Leftover(String kind, String name, String namespace, String phase, String reason) {
        @Override
        public String toString() {
            return kind + "/" + (namespace == null ? "" : namespace + "/") + name
                    + (phase == null ? "" : " (" + phase + ")") + ": " + reason;
        }
    }

    /** What cleanup removed and what stays. */
    public record Result(int deletedClaims, List<String> removedClaims, List<String> removedVolumes,
                         List<Leftover> leftover, int rounds, String lastError) {
        public boolean clean() {
            return leftover.isEmpty();
        }
    }

    /**
     * A cleanup as {@code provbench cleanup} or {@code POST /api/cleanup} asks for it, checked: one run's claims
     * ({@code runId}) or every run's (null), where, and for how long.
     */
    public record Request(String runId, String namespace, int namespaces, Duration timeout) {
        /** A bad field, by its JSON name; the CLI's flag is the same in kebab case ({@code runId} → --run-id). */
        public static final class Invalid extends IllegalArgumentException {
            private final String field;

            public Invalid(String field, String message) {
                super(message);
                this.field = field;
            }

            public String field() {
                return field;
            }
        }

        /** {@code namespace} null: $PROVBENCH_NAMESPACE, else default; {@code timeout} null: 3m, at most {@code max}. */
        public static Request check(String runId, boolean all, String namespace, String timeout, Duration max) {
            return check(runId, all, namespace, null, timeout, max);
        }

        /** As above, over {@code namespaces} (null: 1) namespaces as a run spreads them ({@link RunNamespaces}). */
        public static Request check(String runId, boolean all, String namespace, Integer namespaces, String timeout,
                Duration max) {
            if (all == (runId != null)) {
                throw new Invalid("runId", "give either a run ID or all");
            }
            if (runId != null && !runId.matches("[a-z0-9]{1,32}")) {
                throw new Invalid("runId", "'" + runId + "' is not a run ID (lower-case letters and digits)");
            }
            String ns = namespace != null ? namespace
                    : System.getenv().getOrDefault("PROVBENCH_NAMESPACE", "default");
            if (!ns.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
                throw new Invalid("namespace", "'" + ns + "' is not a namespace name");
            }
            int k = namespaces == null ? 1 : namespaces;
            if (k < 1 || k > RunNamespaces.MAX) {
                throw new Invalid("namespaces", "must be 1 to " + RunNamespaces.MAX);
            }
            if (!RunNamespaces.fits(ns, k)) {
                throw new Invalid("namespaces", "'" + ns + "-" + (k - 1) + "' is longer than a namespace name may be");
            }
            Duration t;
            try {
                t = Durations.parse(timeout == null ? "3m" : timeout);
            } catch (IllegalArgumentException | ArithmeticException e) {
                throw new Invalid("timeout", e.getMessage());
            }
            if (t.isZero() || t.isNegative() || t.compareTo(max) > 0) {
                throw new Invalid("timeout", "must be more than 0 and at most " + Durations.format(max));
            }
            return new Request(runId, ns, k, t);
        }
    }

    /** For tests: how cleanup waits between rounds. */
    public interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private final KubernetesClient client;
    private final RunNamespaces namespaces;
    private final String runId;
    private final Duration timeout;
    private final Sleeper sleeper;
    private final Set<String> claimUids = new HashSet<>();
    private final Set<String> claimsSeen = new TreeSet<>();
    private final Set<String> volumesSeen = new TreeSet<>();
    private final Set<String> deleteSent = new HashSet<>();
    /** What the last successful round's LISTs held; null until one succeeds. */
    private List<PersistentVolumeClaim> lastClaims;
    private List<PersistentVolume> lastVolumes = List.of();
    private List<Namespace> lastNamespaces = List.of();
    private final Set<String> namespacesDeleteSent = new HashSet<>();
    /** Namespaces the run(s) made that hold claims of others: kept. */
    private final Set<String> othersIn = new HashSet<>();

    /** {@code runId} null: every run's claims in the namespace ({@code provbench cleanup --all}). */
    public RunCleanup(KubernetesClient client, String namespace, String runId, Duration timeout) {
        this(client, new RunNamespaces(namespace, 1), runId, timeout, Thread::sleep);
    }

    /** As above, in each of the run's namespaces. */
    public RunCleanup(KubernetesClient client, RunNamespaces namespaces, String runId, Duration timeout) {
        this(client, namespaces, runId, timeout, Thread::sleep);
    }

    public RunCleanup(KubernetesClient client, Request request) {
        this(client, new RunNamespaces(request.namespace(), request.namespaces()), request.runId(), request.timeout());
    }

    RunCleanup(KubernetesClient client, String namespace, String runId, Duration timeout, Sleeper sleeper) {
        this(client, new RunNamespaces(namespace, 1), runId, timeout, sleeper);
    }

    RunCleanup(KubernetesClient client, RunNamespaces namespaces, String runId, Duration timeout, Sleeper sleeper) {
        this.client = client;
        this.namespaces = namespaces;
        this.runId = runId;
        this.timeout = timeout;
        this.sleeper = sleeper;
    }

    /** Deletes and waits until nothing of the run(s) is left or the timeout passes; interrupt stops it early. */
    public Result run() {
        long deadline = System.nanoTime() + timeout.toNanos();
        long backoff = 250;
        int rounds = 0;
        String lastError = null;
        boolean interrupted = false;
        while (true) {
            rounds++;
            try {
                if (round()) {
                    return result(lastNamespaces.stream().map(n -> namespace(n, "")).toList(), rounds, null);
                }
                lastError = null;
                backoff = 250;
            } catch (KubernetesClientException e) {
                lastError = ApiErrors.describe(e);
                backoff = Math.min(backoff * 2, 5000);
            }
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                break;
            }
            try {
                sleeper.sleep(Math.min(lastError == null ? 1000 : backoff, left));
            } catch (InterruptedException e) {
                interrupted = true;
                break;
            }
        }
        List<Leftover> leftover = finalState(interrupted ? "cleanup was interrupted" : lastError != null
                ? "not removed within the cleanup timeout of " + timeout.toSeconds() + "s; the cluster last "
                + "answered: " + lastError : "not removed within the cleanup timeout of " + timeout.toSeconds() + "s");
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return result(leftover, rounds, lastError);
    }

    /** One round: LIST, delete what is not being deleted yet; true when nothing of the run(s) is left. */
    private boolean round() {
        List<PersistentVolumeClaim> claims = listClaims();
        for (PersistentVolumeClaim c : claims) {
            claimUids.add(c.getMetadata().getUid());
            claimsSeen.add(c.getMetadata().getName());
            if (c.getMetadata().getDeletionTimestamp() == null && deleteSent.add(c.getMetadata().getUid())) {
                try {
                    client.persistentVolumeClaims().inNamespace(c.getMetadata().getNamespace())
                            .withName(c.getMetadata().getName()).delete();
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 404) {
                        deleteSent.remove(c.getMetadata().getUid()); // try again next round
                        throw e;
                    }
                }
            }
        }
        List<PersistentVolume> volumes = listVolumes();
        volumes.forEach(v -> volumesSeen.add(v.getMetadata().getName()));
        lastClaims = claims;
        lastVolumes = volumes;
        return claims.isEmpty() && volumes.isEmpty() && namespacesGone();
    }

    /**
     * Once nothing of the run(s) is left in them: deletes the namespaces they made (an empty LIST of claims in
     * each first: one holding another's claims is kept and named at the end) and tells whether all are gone.
     */
    private boolean namespacesGone() {
        List<Namespace> made = namespaces.made(client, runId);
        for (Namespace ns : made) {
            String name = ns.getMetadata().getName();
            if (ns.getMetadata().getDeletionTimestamp() != null || othersIn.contains(name)
                    || !namespacesDeleteSent.add(name)) {
                continue;
            }
            if (!client.persistentVolumeClaims().inNamespace(name).list(new ListOptionsBuilder().withLimit(1L)
                    .build()).getItems().isEmpty()) {
                othersIn.add(name);
                namespacesDeleteSent.remove(name);
                continue;
            }
            try {
                client.namespaces().withName(name).delete();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404) {
                    namespacesDeleteSent.remove(name);
                    throw e;
                }
            }
        }
        lastNamespaces = made;
        return made.stream().allMatch(ns -> othersIn.contains(ns.getMetadata().getName()));
    }

    private List<PersistentVolumeClaim> listClaims() {
        List<PersistentVolumeClaim> out = new ArrayList<>();
        for (String ns : namespaces.names()) {
            var claims = client.persistentVolumeClaims().inNamespace(ns);
            Paged.each(runId == null ? claims.withLabel(RunConfig.LABEL) : claims.withLabel(RunConfig.LABEL, runId),
                    out::add);
        }
        return out;
    }

    /**
     * The PVs made for the run(s)' claims, bound or not: by the UID of a claim seen, or — for one run — by the
     * claim's name, which finds PVs of claims deleted before cleanup saw them. For every run ({@code --all})
     * names are not trusted (another tool's claim may be called pb-…), so such PVs are not waited for; with
     * reclaim policy Delete csi-provisioner removes them anyway.
     */
    private List<PersistentVolume> listVolumes() {
        List<PersistentVolume> out = new ArrayList<>();
        Paged.each(client.persistentVolumes(), (PersistentVolume v) -> { // every PV of the cluster: a page at a time
            ObjectReference ref = v.getSpec() == null ? null : v.getSpec().getClaimRef();
            if (ref != null && (claimUids.contains(ref.getUid()) || namespaces.contains(ref.getNamespace())
                    && ours(ref.getName()))) {
                out.add(v);
            }
        });
        return out;
    }

    private boolean ours(String claimName) {
        if (claimName == null) {
            return false;
        }
        Matcher m = CLAIM_NAME.matcher(claimName);
        return runId != null && m.matches() && runId.equals(m.group(1));
    }

    private List<Leftover> finalState(String reason) {
        List<Leftover> out = new ArrayList<>();
        try {
            for (PersistentVolumeClaim c : listClaims()) {
                out.add(claim(c, c.getMetadata().getDeletionTimestamp() == null ? "not deleted: " + reason
                        : "being deleted: " + reason));
            }
            for (PersistentVolume v : listVolumes()) {
                out.add(volume(v, reason));
            }
            for (Namespace ns : namespaces.made(client, runId)) {
                out.add(namespace(ns, reason));
            }
            return out;
        } catch (KubernetesClientException e) {
            String why = "state unknown: the final LIST failed (" + ApiErrors.describe(e)
                    + "); present at the last one";
            out.clear();
            if (lastClaims != null) {
                lastClaims.forEach(c -> out.add(claim(c, why)));
                lastVolumes.forEach(v -> out.add(volume(v, why)));
                lastNamespaces.forEach(n -> out.add(namespace(n, why)));
            }
            if (out.isEmpty()) {
                out.add(new Leftover("unknown", runId == null ? "runs in " + namespaces : "run " + runId,
                        namespaces.toString(),
                        null, "no LIST of the run's claims and volumes succeeded (" + ApiErrors.describe(e) + ")"));
            }
            return out;
        }
    }

    private static Leftover claim(PersistentVolumeClaim c, String reason) {
        return new Leftover("PersistentVolumeClaim", c.getMetadata().getName(), c.getMetadata().getNamespace(),
                c.getStatus() == null ? null : c.getStatus().getPhase(), reason);
    }

    private Leftover namespace(Namespace ns, String reason) {
        String name = ns.getMetadata().getName();
        return new Leftover("Namespace", name, null, ns.getStatus() == null ? null : ns.getStatus().getPhase(),
                othersIn.contains(name) ? "made by the run and kept: it holds claims of others" : reason);
    }

    private static Leftover volume(PersistentVolume v, String reason) {
        return new Leftover("PersistentVolume", v.getMetadata().getName(), null,
                v.getStatus() == null ? null : v.getStatus().getPhase(), reason);
    }

    private Result result(List<Leftover> leftover, int rounds, String lastError) {
        Set<String> claimsLeft = new HashSet<>();
        Set<String> volumesLeft = new HashSet<>();
        for (Leftover l : leftover) {
            (l.kind().equals("PersistentVolume") ? volumesLeft : claimsLeft).add(l.name());
        }
        Set<String> claims = new TreeSet<>(claimsSeen);
        claims.removeAll(claimsLeft);
        Set<String> volumes = new TreeSet<>(volumesSeen);
        volumes.removeAll(volumesLeft);
        return new Result(deleteSent.size(), List.copyOf(claims), List.copyOf(volumes), List.copyOf(leftover), rounds,
                lastError);
    }
}
