package dev.provbench.load;

import dev.provbench.kube.Failures;
import dev.provbench.kube.RequestStats;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A claim's two writes as every workload sends them, with what a lost answer needs: the create's POST with
 * resend-and-adopt, the delete's DELETE with retries, the failed op counted and (the first few) logged, and a claim
 * whose fate is unknown handed to the {@link Reaper}. Waiting for Bound and for the PV to go is the workload's
 * ({@link Waits}): a closed loop waits in its worker, an open loop registers the wait and goes on.
 */
public final class ClaimOps {
    /** How many failed ops a run logs one line for (the report counts them all, by cause). */
    static final int FAILURES_LOGGED = 10;
    /** How long a create waits before it sends its POST again after a connection error. */
    static final Duration RESEND_AFTER = Duration.ofMillis(250);
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(ClaimOps.class);

    /**
     * A write the API server took: when the op started ({@code t0}, before its token), how long it waited for its
     * token ({@code queue}), and for a create whether the claim was adopted after its answer was lost.
     */
    public record Sent(long t0, long queue, boolean recovered) {
    }

    private final RunConfig config;
    private final String runId;
    private final RequestStats stats;
    private final Waits waits;
    private final Stamps stamps;
    private final Reaper reaper;
    private final Signals signals;
    /** One per namespace of the run, in {@link RunNamespaces#names()}' order. */
    private final ClaimRequests[] requests;
    private final RunNamespaces namespaces;
    private final AtomicLong failuresLogged = new AtomicLong();
    private volatile OpLog log;
    private final Stall stall;

    ClaimOps(RunConfig config, String runId, KubernetesClient client, RequestStats stats, Waits waits, Stamps stamps,
            Reaper reaper, Stall stall, Signals signals) {
        this.config = config;
        this.runId = runId;
        this.stats = stats;
        this.waits = waits;
        this.stamps = stamps;
        this.reaper = reaper;
        this.stall = stall;
        this.signals = signals;
        this.namespaces = RunNamespaces.of(config);
        this.requests = namespaces.names().stream()
                .map(ns -> new ClaimRequests(client, claim(config, ns, runId, "pb-" + runId)))
                .toArray(ClaimRequests[]::new);
    }

    void log(OpLog log) {
        this.log = log;
    }

    /** The claim every POST of the run sends to {@code namespace}, but for its name. */
    static PersistentVolumeClaim claim(RunConfig config, String namespace, String runId, String name) {
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace)
                .addToLabels(RunConfig.LABEL, runId).endMetadata()
                .withNewSpec().withStorageClassName(config.storageClass())
                .withAccessModes(config.accessMode())
                .withNewResources().addToRequests("storage", new Quantity(config.size())).endResources()
                .endSpec().build();
    }

    /** The run's claim name number {@code n}: what the cleanup's {@link RunCleanup#CLAIM_NAME} knows. */
    public String name(long n) {
        return "pb-" + runId + "-" + n;
    }

    /**
     * POSTs the claim; returns what was sent, or null after a failure (counted, logged, stamps forgotten). A create
     * whose answer was lost (no answer, a 5xx, a 409 for our own fresh name) is looked up: a claim that exists is
     * adopted ({@code recovered}); after a connection error (closed, reset) the POST is sent once more under the
     * same name ({@link OpLog.Event#CREATE_RETRY}); else the op fails and the name goes to the reaper in case the
     * write lands later.
     */
    public Sent create(String name, long deadline) throws InterruptedException {
        long t0 = System.nanoTime();
        long queue;
        long firstSent = 0; // t0 + the first POST's token wait
        boolean recovered = false;
        boolean resent = false;
        if (stall != null) {
            stall.createSent();
        }
        while (true) {
            try {
                String uid = requests[namespaces.indexOfClaim(name)].create(name);
                long answered = System.nanoTime();
                queue = stats.lastWaitNanos();
                // sent again: the stamps of the first POST, whose answer was lost
                stamps.createSent(name, t0, resent ? firstSent : t0 + queue, resent ? 0 : answered, uid);
                return new Sent(t0, queue, recovered);
            } catch (KubernetesClientException e) {
                queue = stats.lastWaitNanos();
                if (!resent) {
                    firstSent = t0 + queue;
                }
                String cause = stats.failed(e);
                if (stall != null) {
                    stall.createFailed(e);
                }
                boolean unknown = e.getCode() == 409 || Failures.outcomeUnknown(e);
                if (unknown && exists(name)) {
                    recovered = true;
                    stamps.createSent(name, t0, firstSent, 0, null);
                    return new Sent(t0, queue, true);
                }
                // a connection that broke under the POST (closed, reset) and no claim: sent again once, as
                // client-go's transport resends a request its reused connection lost; a 409 then is our first
                // POST landing late, and the claim is adopted
                if (!resent && Failures.CONNECTION_ERROR.equals(cause) && !signals.cut()
                        && System.nanoTime() + RESEND_AFTER.toNanos() < deadline) {
                    resent = true;
                    log.event(OpLog.Event.CREATE_RETRY);
                    Thread.sleep(RESEND_AFTER.toMillis());
                    continue;
                }
                failed(name, "create:" + cause, e);
                stamps.forget(name);
                if (e.getCode() != 409 && unknown) {
                    reaper.abandon(name);
                }
                return null;
            }
        }
    }

    /** Whether our claim exists after a create whose answer was lost (false if that cannot be told). */
    private boolean exists(String name) {
        try {
            Views.Claim c = waits.lookup(name);
            return c != null && !c.deleting() && runId.equals(c.runLabel());
        } catch (KubernetesClientException e) {
            stats.failed(e);
            return false;
        }
    }

    /**
     * DELETEs the claim of {@code volume}; returns what was sent, or null after a failure (counted, its claim handed
     * to the reaper). A failed DELETE is sent again (deletes are idempotent: a claim already gone is success) with
     * backoff until {@code deadline}.
     */
    public Sent delete(String name, String volume, long deadline) throws InterruptedException {
        long t1 = System.nanoTime();
        long queue = -1;
        long pause = 250;
        String handle = waits.handleOf(volume);
        if (handle != null) {
            stamps.handle(name, handle);
        }
        while (true) {
            try {
                requests[namespaces.indexOfClaim(name)].delete(name);
                long answered = System.nanoTime();
                if (queue < 0) {
                    queue = stats.lastWaitNanos();
                }
                stamps.deleteSent(name, t1, t1 + queue, answered); // after retries: the answer that took
                return new Sent(t1, queue, false);
            } catch (KubernetesClientException e) {
                if (queue < 0) {
                    queue = stats.lastWaitNanos();
                }
                String cause = stats.failed(e);
                if (signals.cut() || System.nanoTime() + pause * 1_000_000L > deadline) {
                    failed(name, "delete:" + cause, e);
                    stamps.forget(name);
                    reaper.abandon(name);
                    return null;
                }
                log.event(OpLog.Event.DELETE_RETRY);
                Thread.sleep(pause);
                pause = Math.min(4000, pause * 2);
            }
        }
    }

    /** The create of {@code name} completed at {@code end} (its claim Bound): recorded once. */
    public void bound(String name, Sent s, long end) {
        if (stall != null) {
            stall.served();
        }
        // one record per completed op; a create whose first answer was lost has no stages (Stamps.Op.answerLost)
        stamps.completed(name, true, end, log.completed(OpLog.Kind.CREATE, s.t0(), s.queue(), s.recovered(), end));
    }

    /** The delete of {@code name} completed at {@code end} (its PV gone): recorded once. */
    public void gone(String name, Sent s, long end) {
        stamps.completed(name, false, end, log.completed(OpLog.Kind.DELETE, s.t0(), s.queue(), false, end));
    }

    /** The create did not complete: counted as {@code cause}; its claim goes to the reaper when {@code reap}. */
    public void createFailed(String name, String cause, Exception e, boolean reap) {
        failed(name, cause, e);
        stamps.forget(name);
        if (reap) {
            reaper.abandon(name);
        }
    }

    /** The op was cut (an interrupt): nothing of this claim is kept, nothing counted. */
    public void forget(String name) {
        stamps.forget(name);
    }

    /** The delete did not complete: counted as {@code cause}. */
    public void deleteFailed(String name, String cause, Exception e) {
        failed(name, cause, e);
        stamps.forget(name);
    }

    /**
     * A failed op: counted by the op log, and the run's first {@link #FAILURES_LOGGED} are logged with the claim,
     * the cause and what the client saw (an API server's Status message, bounded), so a failed run says why.
     */
    private void failed(String name, String cause, Exception e) {
        log.failed(cause);
        long n = failuresLogged.incrementAndGet();
        if (n <= FAILURES_LOGGED) {
            String what = e == null ? "" : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            if (what.length() > 300) {
                what = what.substring(0, 300) + "…";
            }
            LOG.warnf("run %s: op failed (%s) on claim %s%s%s", runId, cause, name,
                    what.isEmpty() ? "" : ": " + what.replace('\n', ' '),
                    n == FAILURES_LOGGED ? " (further failures are counted, not logged)" : "");
        }
    }

    /** A pause after a failed op, so a refusing cluster is not hammered; none once the run stops. */
    public void backoff() throws InterruptedException {
        if (!signals.stopping()) {
            Thread.sleep(1000);
        }
    }
}
