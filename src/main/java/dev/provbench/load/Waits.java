package dev.provbench.load;

import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.impl.BaseClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for a claim to be Bound and for a volume to be gone. In informer mode (the default) the waits are
 * completed by watch events and checked against the list-watches' caches — no GET is ever sent; the list-watches
 * ({@link ListWatch}, over the run client's connections and limiter) decode only the fields read here
 * ({@link Views}). Poll mode asks every {@link #POLL_INTERVAL} (a GET of the claim; a LIST of the volume by name,
 * which needs no more than the list right on PVs the load Role has) and exists only to measure the difference.
 * A run spread over namespaces ({@link RunNamespaces}) has one claim list-watch per namespace (a namespaced Role
 * may not watch claims cluster-wide); a claim's namespace follows from its name.
 */
public final class Waits implements AutoCloseable {
    public static final Duration POLL_INTERVAL = Duration.ofMillis(200);
    /** The PV controller's mark that a claim is for this provisioner (kube-controller-manager sets it). */
    static final String ANN_PROVISIONER = "volume.kubernetes.io/storage-provisioner";

    private final KubernetesClient client;
    private final RequestStats stats;
    private final RunNamespaces namespaces;
    private final RunConfig.WaitMode mode;
    private final Map<String, CompletableFuture<String>> bound = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<String>> gone = new ConcurrentHashMap<>();
    /** One per namespace, in {@link RunNamespaces#names()}' order; null in poll mode. */
    private List<ListWatch<Views.Claim>> claims;
    private ListWatch<Views.Volume> volumes;
    private final Stamps stamps;
    private final Tenants tenants;
    /** The first PV of the run's own whose reclaim policy is not Delete, as "name policy", or null. */
    private volatile String kept;

    public Waits(KubernetesClient client, RequestStats stats, String namespace, String runId,
            RunConfig.WaitMode mode, Duration syncTimeout) throws Exception {
        this(client, stats, new RunNamespaces(namespace, 1), runId, mode, syncTimeout, new Stamps(), null);
    }

    /**
     * As above; the list-watches' handlers stamp what they see into {@code stamps} and count the PVs of other
     * claims of the run's provisioner into {@code tenants} (null: not counted).
     */
    public Waits(KubernetesClient client, RequestStats stats, RunNamespaces namespaces, String runId,
            RunConfig.WaitMode mode, Duration syncTimeout, Stamps stamps, Tenants tenants) throws Exception {
        this.stamps = stamps;
        this.tenants = tenants;
        this.client = client;
        this.stats = stats;
        this.namespaces = namespaces;
        this.mode = mode;
        if (mode == RunConfig.WaitMode.POLL) {
            return;
        }
        String api = client.getMasterUrl().toString().replaceAll("/+$", "") + "/api/v1/";
        Executor executor = client.adapt(BaseClient.class).getExecutor();
        ListWatch.Handler<Views.Claim> onClaim = new ListWatch.Handler<>() {
            public void changed(Views.Claim c) {
                claimChanged(c);
            }

            public void deleted(Views.Claim c) {
                stamps.claimGone(c.name(), System.nanoTime());
            }
        };
        claims = new ArrayList<>(namespaces.count());
        for (String ns : namespaces.names()) {
            claims.add(new ListWatch<>(client.getHttpClient(), api + "namespaces/" + ns + "/persistentvolumeclaims",
                    RunConfig.LABEL + "=" + runId, p -> Views.claim(p, RunConfig.LABEL), onClaim, executor));
        }
        volumes = new ListWatch<>(client.getHttpClient(), api + "persistentvolumes", null, Views::volume,
                new ListWatch.Handler<>() {
                    public void appeared(Views.Volume v) {
                        if (tenants != null) {
                            tenants.appeared(v);
                        }
                    }

                    public void changed(Views.Volume v) {
                        volumeChanged(v);
                    }

                    public void deleted(Views.Volume v) {
                        if (tenants != null) {
                            tenants.gone(v);
                        }
                        CompletableFuture<String> f = gone.remove(v.name());
                        if (f != null) {
                            f.complete(v.name());
                        }
                    }
                }, executor);
        try {
            List<CompletableFuture<?>> started = new ArrayList<>();
            claims.forEach(c -> started.add(c.start()));
            started.add(volumes.start());
            CompletableFuture.allOf(started.toArray(CompletableFuture[]::new))
                    .get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    private static String boundVolume(Views.Claim c) {
        return c == null ? null : c.boundVolume();
    }

    /** A PV of a claim in one of the run's namespaces: seen, and (the first time) Released. */
    private void volumeChanged(Views.Volume v) {
        if (!namespaces.contains(v.claimNamespace()) || v.claimName() == null) {
            return;
        }
        String claim = v.claimName();
        long now = System.nanoTime();
        if (kept == null && v.reclaimPolicy() != null && !"Delete".equals(v.reclaimPolicy())
                && (tenants == null || tenants.own(v))) {
            kept = v.name() + " " + v.reclaimPolicy();
        }
        stamps.pvSeen(claim, v.handle(), now);
        if ("Released".equals(v.phase())) {
            stamps.released(claim, now);
        }
    }

    /**
     * The first PV of the run's claims seen with a reclaim policy other than {@code Delete} ("name policy"), or null:
     * csi-provisioner never deletes such a PV after its claim, so no delete of the run can complete.
     */
    public String kept() {
        return kept;
    }

    /**
     * The list-watches, the PVs' first and then the claims' (one per namespace, in {@link RunNamespaces#names()}'
     * order); none in poll mode.
     */
    public List<ListWatch<?>> listWatches() {
        List<ListWatch<?>> out = new ArrayList<>();
        if (volumes != null) {
            out.add(volumes);
            out.addAll(claims);
        }
        return out;
    }

    /** The run's namespaces, as the claim list-watches are ordered. */
    public RunNamespaces namespaces() {
        return namespaces;
    }

    /** The CSI volume handle of this PV as the informer has it, or null. */
    public String handleOf(String volume) {
        Views.Volume v = volumes == null ? null : volumes.get(volume);
        return v == null ? null : v.handle();
    }

    private void claimChanged(Views.Claim c) {
        stamps.own(c.uid());
        if (c.marked() && !c.deleting()) {
            stamps.marked(c.name(), c.uid(), System.nanoTime());
        }
        String pv = boundVolume(c);
        if (pv != null) {
            CompletableFuture<String> f = bound.remove(c.name());
            if (f != null) {
                f.complete(pv);
            }
        }
    }

    /**
     * The claim as the run knows it: the watch's copy, else (or in poll mode) one GET. Null if it does not exist.
     * A failed GET throws.
     */
    public Views.Claim lookup(String claim) {
        if (claims != null) {
            Views.Claim c = cached(claim);
            if (c != null) {
                return c;
            }
        }
        return Views.Claim.of(client.persistentVolumeClaims().inNamespace(namespaces.ofClaim(claim)).withName(claim)
                .get(), RunConfig.LABEL);
    }

    /** The claim list-watch's copy of the claim (informer mode), or null. */
    private Views.Claim cached(String claim) {
        return claims.get(namespaces.indexOfClaim(claim)).get(claim);
    }

    /** Whether the informer shows the claim, not being deleted; always true in poll mode (nothing to ask). */
    public boolean shows(String claim) {
        if (claims == null) {
            return true;
        }
        Views.Claim c = cached(claim);
        return c != null && !c.deleting();
    }

    /** Waits until the claim is Bound; returns its volume's name. */
    public String awaitBound(String claim, Duration timeout) throws InterruptedException, TimeoutException {
        if (mode == RunConfig.WaitMode.POLL) {
            return poll(timeout, () -> boundVolume(Views.Claim.of(client.persistentVolumeClaims()
                    .inNamespace(namespaces.ofClaim(claim)).withName(claim).get(), RunConfig.LABEL)));
        }
        CompletableFuture<String> f = new CompletableFuture<>();
        bound.put(claim, f);
        String already = boundVolume(cached(claim));
        if (already != null) {
            bound.remove(claim, f);
            return already;
        }
        return await(f, timeout, () -> bound.remove(claim, f));
    }

    /**
     * Completes with the claim's volume once the claim is Bound (informer mode): an open loop's wait, which
     * blocks no thread. {@link #dropBound} forgets a wait given up.
     */
    public CompletableFuture<String> bound(String claim) {
        requireInformer();
        CompletableFuture<String> f = new CompletableFuture<>();
        bound.put(claim, f);
        String already = boundVolume(cached(claim));
        if (already != null && bound.remove(claim, f)) {
            f.complete(already);
        }
        return f;
    }

    /** Completes once the volume object no longer exists (informer mode), as {@link #bound}. */
    public CompletableFuture<String> gone(String volume) {
        requireInformer();
        CompletableFuture<String> f = new CompletableFuture<>();
        gone.put(volume, f);
        if (volumes.get(volume) == null && gone.remove(volume, f)) {
            f.complete(volume);
        }
        return f;
    }

    public void dropBound(String claim, CompletableFuture<String> f) {
        bound.remove(claim, f);
    }

    public void dropGone(String volume, CompletableFuture<String> f) {
        gone.remove(volume, f);
    }

    private void requireInformer() {
        if (mode == RunConfig.WaitMode.POLL) {
            throw new IllegalStateException("an open loop's waits need the list-watches (--wait-mode informer)");
        }
    }

    /** Waits until the volume object no longer exists. */
    public void awaitGone(String volume, Duration timeout) throws InterruptedException, TimeoutException {
        if (mode == RunConfig.WaitMode.POLL) {
            // a LIST by name rather than a GET: the load Role grants PVs list/watch only (kubernetes/base)
            poll(timeout, () -> client.persistentVolumes().withField("metadata.name", volume).list().getItems()
                    .isEmpty() ? volume : null);
            return;
        }
        CompletableFuture<String> f = new CompletableFuture<>();
        gone.put(volume, f);
        if (volumes.get(volume) == null) {
            gone.remove(volume, f);
            return;
        }
        await(f, timeout, () -> gone.remove(volume, f));
    }

    private static String await(CompletableFuture<String> f, Duration timeout, Runnable onTimeout)
            throws InterruptedException, TimeoutException {
        try {
            return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            onTimeout.run();
            throw e;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private interface Check {
        String get();
    }

    /** Asks until the check answers; a failed request is counted and asked again, until the deadline. */
    private String poll(Duration timeout, Check check) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String v;
            try {
                v = check.get();
            } catch (KubernetesClientException e) {
                stats.failed(e);
                v = null;
            }
            if (v != null) {
                return v;
            }
            if (System.nanoTime() + POLL_INTERVAL.toNanos() > deadline) {
                throw new TimeoutException();
            }
            Thread.sleep(POLL_INTERVAL.toMillis());
        }
    }

    @Override
    public void close() {
        if (claims != null) {
            claims.forEach(ListWatch::close);
        }
        if (volumes != null) {
            volumes.close();
        }
    }
}
