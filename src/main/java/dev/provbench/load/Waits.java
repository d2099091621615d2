package dev.provbench.load;

import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Lister;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for a claim to be Bound and for a volume to be gone. In informer mode (the default) the waits are
 * completed by informer events and checked against the informers' listers — no GET is ever sent; the informers
 * decode only the fields read here ({@link Views}, over the run client's connections and limiter). Poll mode
 * asks every {@link #POLL_INTERVAL} (a GET of the claim; a LIST of the volume by name, which needs no more
 * than the list right on PVs the load Role has) and exists only to measure the difference.
 */
public final class Waits implements AutoCloseable {
    public static final Duration POLL_INTERVAL = Duration.ofMillis(200);
    /** The PV controller's mark that a claim is for this provisioner (kube-controller-manager sets it). */
    static final String ANN_PROVISIONER = "volume.kubernetes.io/storage-provisioner";

    private final KubernetesClient client;
    private final RequestStats stats;
    private final String namespace;
    private final RunConfig.WaitMode mode;
    private final Map<String, CompletableFuture<String>> bound = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<String>> gone = new ConcurrentHashMap<>();
    private SharedIndexInformer<Views.Claim> claims;
    private SharedIndexInformer<Views.Volume> volumes;
    private Lister<Views.Claim> claimLister;
    private Lister<Views.Volume> volumeLister;
    private final Stamps stamps;

    public Waits(KubernetesClient client, RequestStats stats, String namespace, String runId,
            RunConfig.WaitMode mode, Duration syncTimeout) throws Exception {
        this(client, stats, namespace, runId, mode, syncTimeout, new Stamps());
    }

    /** As above; the informers' handlers stamp what they see into {@code stamps}. */
    public Waits(KubernetesClient client, RequestStats stats, String namespace, String runId,
            RunConfig.WaitMode mode, Duration syncTimeout, Stamps stamps) throws Exception {
        this.stamps = stamps;
        this.client = client;
        this.stats = stats;
        this.namespace = namespace;
        this.mode = mode;
        if (mode == RunConfig.WaitMode.POLL) {
            return;
        }
        KubernetesClient views = Views.client(client); // never closed: its HTTP client and executor are client's
        claims = views.resources(Views.Claim.class).inNamespace(namespace).withLabel(RunConfig.LABEL, runId)
                .runnableInformer(0);
        claims.addEventHandler(new ResourceEventHandler<>() {
            public void onAdd(Views.Claim c) {
                claimChanged(c);
            }

            public void onUpdate(Views.Claim old, Views.Claim c) {
                claimChanged(c);
            }

            public void onDelete(Views.Claim c, boolean unknownFinalState) {
                stamps.claimGone(c.getMetadata().getName(), System.nanoTime());
            }
        });
        volumes = views.resources(Views.Volume.class).runnableInformer(0);
        volumes.addEventHandler(new ResourceEventHandler<>() {
            public void onAdd(Views.Volume v) {
                volumeChanged(v);
            }

            public void onUpdate(Views.Volume old, Views.Volume v) {
                volumeChanged(v);
            }

            public void onDelete(Views.Volume v, boolean unknownFinalState) {
                CompletableFuture<String> f = gone.remove(v.getMetadata().getName());
                if (f != null) {
                    f.complete(v.getMetadata().getName());
                }
            }
        });
        claimLister = new Lister<>(claims.getIndexer(), namespace);
        volumeLister = new Lister<>(volumes.getIndexer());
        CompletableFuture.allOf(claims.start().toCompletableFuture(), volumes.start().toCompletableFuture())
                .get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static String boundVolume(Views.Claim c) {
        return c == null ? null : c.boundVolume();
    }

    private static String boundVolume(PersistentVolumeClaim c) {
        if (c == null || c.getStatus() == null || !"Bound".equals(c.getStatus().getPhase())
                || c.getSpec() == null || c.getSpec().getVolumeName() == null || c.getSpec().getVolumeName().isEmpty()) {
            return null;
        }
        return c.getSpec().getVolumeName();
    }

    /** A PV of one of this namespace's claims: seen, and (the first time) Released. */
    private void volumeChanged(Views.Volume v) {
        String claim = v.claimIn(namespace);
        if (claim == null) {
            return;
        }
        long now = System.nanoTime();
        stamps.pvSeen(claim, v.handle(), now);
        if ("Released".equals(v.phase())) {
            stamps.released(claim, now);
        }
    }

    /** The CSI volume handle of this PV as the informer has it, or null. */
    public String handleOf(String volume) {
        Views.Volume v = volumeLister == null ? null : volumeLister.get(volume);
        return v == null ? null : v.handle();
    }

    private void claimChanged(Views.Claim c) {
        Map<String, String> ann = c.getMetadata().getAnnotations();
        if (ann != null && ann.containsKey(ANN_PROVISIONER) && c.getMetadata().getDeletionTimestamp() == null) {
            stamps.marked(c.getMetadata().getName(), c.getMetadata().getUid(), System.nanoTime());
        }
        String pv = boundVolume(c);
        if (pv != null) {
            CompletableFuture<String> f = bound.remove(c.getMetadata().getName());
            if (f != null) {
                f.complete(pv);
            }
        }
    }

    /**
     * The claim's metadata as the run knows it: the informer's copy, else (or in poll mode) one GET. Null if it
     * does not exist. A failed GET throws.
     */
    public ObjectMeta lookup(String claim) {
        if (claimLister != null) {
            Views.Claim c = claimLister.get(claim);
            if (c != null) {
                return c.getMetadata();
            }
        }
        PersistentVolumeClaim c = client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get();
        return c == null ? null : c.getMetadata();
    }

    /** Whether the informer shows the claim, not being deleted; always true in poll mode (nothing to ask). */
    public boolean shows(String claim) {
        if (claimLister == null) {
            return true;
        }
        Views.Claim c = claimLister.get(claim);
        return c != null && c.getMetadata().getDeletionTimestamp() == null;
    }

    /** Waits until the claim is Bound; returns its volume's name. */
    public String awaitBound(String claim, Duration timeout) throws InterruptedException, TimeoutException {
        if (mode == RunConfig.WaitMode.POLL) {
            return poll(timeout, () -> boundVolume(client.persistentVolumeClaims().inNamespace(namespace)
                    .withName(claim).get()));
        }
        CompletableFuture<String> f = new CompletableFuture<>();
        bound.put(claim, f);
        String already = boundVolume(claimLister.get(claim));
        if (already != null) {
            bound.remove(claim, f);
            return already;
        }
        return await(f, timeout, () -> bound.remove(claim, f));
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
        if (volumeLister.get(volume) == null) {
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
            claims.close();
        }
        if (volumes != null) {
            volumes.close();
        }
    }
}
