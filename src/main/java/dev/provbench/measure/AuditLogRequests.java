package dev.provbench.measure;

import dev.provbench.evidence.AuditLog;
import dev.provbench.load.RunWindow;

import dev.provbench.report.Rows;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Row;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code components} against a real kube-apiserver: the requests it received in the window, by component
 * (load driver, csi-provisioner, kube-controller-manager, …), from its JSON audit log; per op over the
 * window's ops.
 */
public final class AuditLogRequests implements Measurement {

    /**
     * Was csi-provisioner bound by its client-side bucket in the window? ({@code throttling.provisioner}; its
     * own log's count is {@link ProvisionerLog}'s {@code logLines} beside it.)
     *
     * @param method     how it was found: the stand-in's own bucket (exact) or a replay of the audit log
     * @param assumed    qps/burst not given (--provisioner-qps/--provisioner-burst): csi-provisioner's defaults
     * @param atLimit    requests sent at the bucket's limit (they waited for their token)
     * @param boundShare share of the window the bucket held under one token (null when not known)
     * @param verdict    {@code bound} (≥ 50 % of the window), {@code partly bound}, {@code not bound} (< 10 %)
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record ProvisionerBucket(String method, Double qps, Integer burst, Boolean assumed, long requests,
                                    long atLimit, Double atLimitShare, Double boundShare, String verdict) {
    }

    /**
     * {@code ownRequests}: per component, its window requests whose object is one of the run's — its claims, their
     * PVs ({@code pvc-<claim UID>}), their Events ({@code <claim>.<suffix>}) — by verb and resource, and per window op.
     * LISTs and WATCHes name no object, so they are not in here (they are in {@code components}, shared).
     */
    public record OwnRequests(long requests, Double perOp, Map<String, Long> byVerbResource) {
    }

    public static final SectionKind<Map<String, OwnRequests>> OWN = SectionKind.of("ownRequests",
            new com.fasterxml.jackson.core.type.TypeReference<Map<String, OwnRequests>>() {
            }).scope(Scope.OWN_REQUESTS).rows(m -> {
                List<Row> rows = new ArrayList<>();
                m.forEach((who, o) -> rows.add(new Row("requests", "  " + who + " on the run's objects",
                        o.requests() + (o.perOp() == null ? "" : " (" + Rows.num(o.perOp()) + "/op)") + ": "
                                + Rows.map(o.byVerbResource()))));
                return rows;
            });

    /** {@code throttling.server.clients}: per component, its window requests by "flow schema → priority level". */
    public record Clients(Map<String, Map<String, Long>> clients) {
    }

    public static final SectionKind<ProvisionerBucket> BUCKET = SectionKind.of("throttling.provisioner",
            ProvisionerBucket.class).scope(Scope.PROVISIONER_BUCKET).rows(b -> List.of(new Row("throttling", b.method().startsWith("the stand-in")
            ? "csi-provisioner (stand-in, exact)" : "csi-provisioner (estimated)", (b.verdict() == null ? ""
            : b.verdict().toUpperCase(Locale.ROOT) + " — ") + b.atLimit() + " of " + b.requests()
            + " requests at the bucket's limit" + (b.boundShare() == null ? "" : ", bucket empty "
            + Math.round(b.boundShare() * 100) + " % of the window") + (b.qps() == null ? "" : " at "
            + Rows.num(b.qps()) + "/" + b.burst() + (Boolean.TRUE.equals(b.assumed()) ? " (assumed: its defaults)"
            : "")) + " — " + b.method())));

    public static final SectionKind<Clients> CLIENTS = SectionKind.of("throttling.server", Clients.class).scope(Scope.SERVER).rows(c -> {
        List<Row> rows = new ArrayList<>();
        c.clients().forEach((who, f) -> rows.add(new Row("throttling", "  " + who + " → priority level",
                Rows.map(f))));
        return rows;
    });

    /** kube-apiserver writes its audit log in batches; wait this long after the run before reading it. */
    static final long FLUSH_MILLIS = 2000;
    private final Path log;
    private final Double qps;
    private final Integer burst;
    private final io.fabric8.kubernetes.client.KubernetesClient client;
    private final AuditLog.Own own;
    private Map<String, AuditLog.Counts> counts;
    private AuditLog.Read read;
    private RunWindow window;
    private java.util.List<io.fabric8.kubernetes.api.model.flowcontrol.v1.FlowSchema> schemas;
    private String schemasProblem;
    private String problem;

    public AuditLogRequests(Path log) {
        this(log, null, null, null);
    }

    /**
     * Also: csi-provisioner's bucket replayed over its requests ({@code qps}/{@code burst} as deployed, null =
     * its defaults, assumed), and — with {@code client} — each component's flow schema and priority level.
     */
    public AuditLogRequests(Path log, Double qps, Integer burst, io.fabric8.kubernetes.client.KubernetesClient client) {
        this(log, qps, burst, client, null);
    }

    /** As above; {@code own} tells the requests on the run's own objects apart (null: not told). */
    public AuditLogRequests(Path log, Double qps, Integer burst, io.fabric8.kubernetes.client.KubernetesClient client,
            AuditLog.Own own) {
        this.log = log;
        this.qps = qps;
        this.burst = burst;
        this.client = client;
        this.own = own;
    }

    /**
     * The run's own objects as the audit log names them: claims in its namespace(s) named {@code pb-<run id>-…}, the
     * Events about them (named {@code <claim>.<suffix>}), and PVs named {@code pvc-<UID>} of its claims.
     */
    public static AuditLog.Own ownObjects(dev.provbench.load.RunNamespaces namespaces, String runId,
            dev.provbench.load.Stamps stamps) {
        String prefix = "pb-" + runId + "-";
        return (resource, ns, name) -> switch (resource) {
            case "persistentvolumeclaims", "events" -> namespaces.contains(ns) && name.startsWith(prefix);
            case "persistentvolumes" -> stamps.ownVolume(name);
            default -> false;
        };
    }

    /** Where the audit log stood before the run's first request: it is read from there on. */
    private dev.provbench.evidence.LogMark mark;

    @Override
    public void idle() {
        mark = dev.provbench.evidence.LogMark.of(log);
    }

    @Override
    public void windowEnd(RunWindow w) {
        if (client == null) {
            return;
        }
        try { // the FlowSchemas as they were in the window
            schemas = client.flowControl().v1().flowSchema().list().getItems();
        } catch (RuntimeException e) {
            schemasProblem = e instanceof io.fabric8.kubernetes.client.KubernetesClientException k && k.getCode() > 0
                    ? "HTTP " + k.getCode() : e.getClass().getSimpleName();
        }
    }

    @Override
    public void finish(RunWindow w) {
        window = w;
        try {
            Thread.sleep(FLUSH_MILLIS);
            read = AuditLog.read(log, mark, w.runStart(), w.start(), w.end(), own);
            counts = read.counts();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem = "interrupted";
        } catch (Exception e) {
            problem = e.getClass().getSimpleName();
        }
    }

    @Override
    public void report(ReportDraft d) {
        if (counts == null) {
            d.warn("cannot read the audit log " + log + ": " + problem);
            return;
        }
        if (read.rewound()) {
            d.warn("the audit log " + log + " was replaced or truncated during the run (rotated?): its requests "
                    + "written before that are not counted");
        }
        Map<String, dev.provbench.report.RunReport.Requests> components = new java.util.TreeMap<>();
        counts.forEach((name, c) -> components.put(name, new dev.provbench.report.RunReport.Requests(c.requests(),
                c.byVerb(), c.byVerbResource(), c.byCode(), d.perOp(c.requests()), null)));
        d.put(ClientRequests.COMPONENTS, components.isEmpty() ? null : components);
        if (own != null) {
            Map<String, OwnRequests> mine = new java.util.TreeMap<>();
            counts.forEach((name, c) -> {
                if (c.ownRequests() > 0) {
                    mine.put(name, new OwnRequests(c.ownRequests(), d.perOp(c.ownRequests()), c.own()));
                }
            });
            d.put(OWN, mine.isEmpty() ? null : mine);
        }
        bucket(d);
        if (schemas != null) {
            FlowMatch match = new FlowMatch(schemas);
            Map<String, Map<String, Long>> flows = new java.util.TreeMap<>();
            read.shapes().forEach((component, shapes) -> shapes.forEach((shape, n) -> {
                String f = match.classify(shape);
                flows.computeIfAbsent(component, k -> new java.util.TreeMap<>()).merge(f == null ? "none (catch-all)"
                        : f, n, Long::sum);
            }));
            d.put(CLIENTS, new Clients(flows));
        } else if (client != null) {
            d.warn("cannot list FlowSchemas (" + schemasProblem + "): throttling.server names no client's priority "
                    + "level (the load identity needs list on flowschemas.flowcontrol.apiserver.k8s.io)");
        }
    }

    /** csi-provisioner's token bucket replayed over the times kube-apiserver received its requests. */
    private void bucket(ReportDraft d) {
        if (!counts.containsKey("csi-provisioner")) {
            return;
        }
        double q = qps == null ? dev.provbench.kube.RateLimiter.DEFAULT_QPS : qps;
        int b = burst == null ? dev.provbench.kube.RateLimiter.DEFAULT_BURST : burst;
        boolean assumed = qps == null && burst == null;
        if (q < 0) {
            d.put(BUCKET, new ProvisionerBucket("no client-side bucket "
                    + "(--provisioner-kube-api-qps negative)", q, b, false, counts.get("csi-provisioner").requests(),
                    0, 0.0, 0.0, "not bound"));
            return;
        }
        dev.provbench.evidence.BucketReplay.Result r = dev.provbench.evidence.BucketReplay.replay(read.provisioner(),
                q, b, window.start(), window.end());
        // more requests in the window than such a bucket lets out (burst + qps × window, +10 % for the slack of
        // receipt times): it is not the bucket csi-provisioner has
        double allowed = b + q * java.time.Duration.between(window.start(), window.end()).toNanos() / 1e9;
        boolean inconsistent = r.requests() > 1.1 * allowed;
        String verdict = inconsistent ? "inconsistent" : r.boundShare() >= 0.5 ? "bound" : r.boundShare() < 0.1
                ? "not bound" : "partly bound";
        if (inconsistent) {
            d.warn("csi-provisioner sent " + r.requests() + " requests in the window, more than the " + Math.round(allowed)
                    + " a " + dev.provbench.report.Rows.num(q) + "/" + b + " bucket lets out: its --kube-api-qps/"
                    + "--kube-api-burst are not these" + (assumed ? " (assumed: give --provisioner-kube-api-qps/"
                    + "--provisioner-kube-api-burst)" : "") + "; throttling.provisioner cannot say whether it was bound");
        }
        d.put(BUCKET, new ProvisionerBucket("audit-log replay of a "
                + dev.provbench.report.Rows.num(q) + "/" + b + " token bucket over the receipt times of its "
                + "requests (docs/load.md)", q, b, assumed, r.requests(), r.atLimit(),
                r.requests() == 0 ? null : dev.provbench.report.ReportBuilder.round((double) r.atLimit() / r.requests()),
                dev.provbench.report.ReportBuilder.round(r.boundShare()), verdict));
    }
}
