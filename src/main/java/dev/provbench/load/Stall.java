package dev.provbench.load;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Tells early, by name, that the cluster has never served this run, instead of letting every create wait out
 * its op timeout. It looks only while no create of the run has completed: once {@code after} has passed since
 * the run's first create, and then every {@link #RECHECK}, it reads the Events of the run's first claims (by
 * name, {@link #CLAIMS_LOOKED_AT} LISTs at most) and judges ({@link #judge}):
 * <ul>
 * <li><b>stop</b> — every create was refused by the API server (a 4xx other than 409/429: a ResourceQuota, an
 * admission webhook…); or the claims got kube-controller-manager's {@code ExternalProvisioning} event and no
 * event at all from a provisioner (none serves the StorageClass's driver); or no event at all (nothing hands
 * the claims to a provisioner: kube-controller-manager's PV controller is not running); or every claim's last
 * provisioner event is {@code ProvisioningFailed} with a gRPC code that retrying cannot change
 * ({@link #FINAL}: {@code InvalidArgument}, {@code PermissionDenied}, …);
 * <li><b>warn</b> (once, the run goes on) — the provisioner reports other failures ({@code Unavailable},
 * {@code DeadlineExceeded}, … may pass), or this identity may not list Events;
 * <li>nothing — the provisioner has taken claims ({@code Provisioning}) and is still at work: slow is not
 * broken.
 * </ul>
 * A run that has completed a create is never judged again: a later outage is a fault, which the report
 * measures. Off when {@code after} is zero ({@code --stall-timeout 0}) and for {@code --local}.
 */
public final class Stall {
    /** Between two looks after the first. */
    public static final Duration RECHECK = Duration.ofSeconds(5);
    /** A look reads the Events of the run's first claims, this many at most (one LIST each)... */
    static final int CLAIMS_LOOKED_AT = 4;
    /** ...and at most this many Events of each. */
    static final int MAX_EVENTS = 100;
    /** Event messages are quoted up to this many characters. */
    static final int MAX_MESSAGE = 300;
    /** kube-controller-manager's PV controller: the source of {@code ExternalProvisioning}. */
    static final String PV_CONTROLLER = "persistentvolume-controller";
    /** gRPC codes a CSI driver answers when the same request cannot succeed by retrying it. */
    static final Pattern FINAL = Pattern.compile("code = (InvalidArgument|NotFound|AlreadyExists|PermissionDenied"
            + "|Unauthenticated|Unimplemented|FailedPrecondition|OutOfRange)\\b");

    /** What a look found: {@code stop} ends the run with {@code cause}; else {@code cause} is a warning. */
    public record Verdict(boolean stop, String cause) {
    }

    /** One Event of one of the run's claims, as far as the judgement needs it. */
    record Seen(String claim, String reason, String source, String message, String when, int index) {
        static final Comparator<Seen> LATER = Comparator.comparing(Seen::when).thenComparingInt(Seen::index);
    }

    private final KubernetesClient client;
    private final RunNamespaces namespaces;
    private final String claimPrefix;
    private final String storageClass;
    private final String provisioner;
    private final long afterNanos;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile String lastRefusal;
    private volatile long firstCreateNanos;
    private volatile boolean served;
    private long nextLookNanos;
    private boolean warned;

    /**
     * @param provisioner the StorageClass's provisioner as the preflight read it (null if it could not)
     */
    public Stall(KubernetesClient client, RunNamespaces namespaces, String runId, String storageClass,
                 String provisioner, Duration after) {
        this.client = client;
        this.namespaces = namespaces;
        this.claimPrefix = "pb-" + runId + "-";
        this.storageClass = storageClass;
        this.provisioner = provisioner;
        this.afterNanos = after.toNanos();
    }

    /** A create is about to be sent. */
    void createSent() {
        if (sent.getAndIncrement() == 0) {
            firstCreateNanos = System.nanoTime();
        }
    }

    /** A create got an answer that refused it. */
    void createFailed(KubernetesClientException e) {
        int code = e.getCode();
        if (code >= 400 && code < 500 && code != 409 && code != 429) {
            refused.incrementAndGet();
            String m = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                    : "HTTP " + code;
            lastRefusal = "HTTP " + code + ": " + clip(m);
        }
    }

    /** A create completed (Bound): the pipeline works, nothing more to judge. */
    void served() {
        served = true;
    }

    /**
     * Called about once a second by the run; null when there is nothing to say (yet), a stop verdict at most
     * once, a warning at most once.
     */
    Verdict look(long now) {
        if (afterNanos == 0 || served || sent.get() == 0 || now - firstCreateNanos < afterNanos
                || now < nextLookNanos) {
            return null;
        }
        nextLookNanos = now + RECHECK.toNanos();
        double seconds = (now - firstCreateNanos) / 1e9;
        List<Seen> events;
        try {
            events = events();
        } catch (KubernetesClientException e) {
            if (e.getCode() <= 0) {
                return null; // the API does not answer: the run's own requests say so
            }
            events = null;
        }
        if (served) {
            return null;
        }
        Verdict v = judge(storageClass, provisioner, events, sent.get(), refused.get(), lastRefusal, seconds);
        if (v != null && !v.stop()) {
            if (warned) {
                return null;
            }
            warned = true;
        }
        return v;
    }

    /** The Events of the run's first claims (by name: other runs' Events in the namespace do not count). */
    private List<Seen> events() {
        List<Seen> out = new ArrayList<>();
        for (long i = 1; i <= Math.min(sent.get(), CLAIMS_LOOKED_AT); i++) {
            for (Event e : client.v1().events().inNamespace(namespaces.ofClaim(claimPrefix + i))
                    .withField("involvedObject.kind", "PersistentVolumeClaim")
                    .withField("involvedObject.name", claimPrefix + i)
                    .list(new ListOptionsBuilder().withLimit((long) MAX_EVENTS).build()).getItems()) {
                String source = e.getSource() != null && e.getSource().getComponent() != null
                        ? e.getSource().getComponent() : e.getReportingComponent();
                String when = e.getLastTimestamp() != null ? e.getLastTimestamp()
                        : e.getEventTime() != null && e.getEventTime().getTime() != null ? e.getEventTime().getTime()
                        : "";
                out.add(new Seen(claimPrefix + i, e.getReason(), source, e.getMessage(), when, out.size()));
            }
        }
        return out;
    }

    /**
     * The judgement, from what was seen: {@code events} null when they may not be read (HTTP 403), else the
     * Events of the run's claims ({@link Seen#when}: RFC 3339, so later sorts after; ties by the API's order).
     */
    static Verdict judge(String storageClass, String provisioner, List<Seen> events, long sent, long refused,
                         String lastRefusal, double seconds) {
        String after = String.format(Locale.ROOT, "no create completed in %.0f s", seconds);
        String driver = provisioner == null ? "its driver" : "driver '" + provisioner + "'";
        if (sent > 0 && refused == sent) {
            return new Verdict(true, "every create was refused by the API server (" + refused + " of " + sent
                    + "), the last with " + lastRefusal);
        }
        if (events == null) {
            return new Verdict(false, after + ", and this identity may not list Events in the run's namespace "
                    + "(RBAC: list events) to tell why");
        }
        if (events.isEmpty() && refused > 0) {
            return new Verdict(false, after + "; " + refused + " of " + sent + " creates were refused by the API "
                    + "server, the last with " + lastRefusal);
        }
        if (events.isEmpty()) {
            return new Verdict(true, after + " and nothing acted on the run's claims: not one Event from "
                    + "kube-controller-manager's PV controller (which hands claims of StorageClass '" + storageClass
                    + "' to " + driver + "'s provisioner) nor from a provisioner; is kube-controller-manager running?");
        }
        Map<String, Seen> lastOfProvisioner = new HashMap<>();
        boolean waiting = false;
        for (Seen s : events) {
            if (PV_CONTROLLER.equals(s.source())) {
                waiting |= "ExternalProvisioning".equals(s.reason());
            } else if ("Provisioning".equals(s.reason()) || "ProvisioningSucceeded".equals(s.reason())
                    || "ProvisioningFailed".equals(s.reason())) {
                lastOfProvisioner.merge(s.claim(), s, (a, b) -> Seen.LATER.compare(a, b) >= 0 ? a : b);
            }
        }
        if (lastOfProvisioner.isEmpty()) {
            if (!waiting) {
                return null; // events of another kind only: too little to judge
            }
            return new Verdict(true, "no provisioner is serving " + driver + " (StorageClass '" + storageClass
                    + "'): " + after + ", and the run's claims got only kube-controller-manager's 'waiting for the "
                    + "external provisioner' Event, none from a provisioner; is csi-provisioner running, with "
                    + "--leader-election settled, for this driver?");
        }
        if (lastOfProvisioner.values().stream().anyMatch(s -> "ProvisioningSucceeded".equals(s.reason()))) {
            return null; // bound any moment now
        }
        List<Seen> failed = lastOfProvisioner.values().stream()
                .filter(s -> "ProvisioningFailed".equals(s.reason())).toList();
        if (failed.isEmpty()) {
            return null; // taken and still at work: slow is not broken
        }
        Seen latest = failed.stream().max(Seen.LATER).orElseThrow();
        String quoted = "'" + clip(latest.message()) + "'";
        boolean allFinal = failed.size() == lastOfProvisioner.size()
                && failed.stream().allMatch(s -> s.message() != null && FINAL.matcher(s.message()).find());
        if (allFinal) {
            return new Verdict(true, "the provisioner of StorageClass '" + storageClass + "' refuses the run's "
                    + "claims with an error retrying cannot change: " + quoted);
        }
        return new Verdict(false, after + "; the provisioner of StorageClass '" + storageClass + "' reports "
                + quoted + " (" + failed.size() + " of " + lastOfProvisioner.size() + " claims it took)");
    }

    static String clip(String s) {
        if (s == null) {
            return "";
        }
        String one = s.replaceAll("[\\r\\n\\t]+", " ").strip();
        return one.length() <= MAX_MESSAGE ? one : one.substring(0, MAX_MESSAGE) + "…";
    }
}
