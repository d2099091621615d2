package dev.provbench.measure;

import dev.provbench.evidence.AuditLog;
import dev.provbench.load.RunWindow;

import java.nio.file.Path;
import java.util.Map;

/**
 * {@code components} against a real kube-apiserver: the requests it received in the window, by component
 * (load driver, csi-provisioner, kube-controller-manager, …), from its JSON audit log; per op over the
 * window's ops.
 */
public final class AuditLogRequests implements Measurement {
    /** kube-apiserver writes its audit log in batches; wait this long after the run before reading it. */
    static final long FLUSH_MILLIS = 2000;
    private final Path log;
    private final Double qps;
    private final Integer burst;
    private final io.fabric8.kubernetes.client.KubernetesClient client;
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
        this.log = log;
        this.qps = qps;
        this.burst = burst;
        this.client = client;
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
            read = AuditLog.read(log, w.runStart(), w.start(), w.end());
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
        counts.forEach((name, c) -> d.component(name, new dev.provbench.report.RunReport.Requests(c.requests(),
                c.byVerb(), c.byVerbResource(), c.byCode(), d.perOp(c.requests()), null)));
        bucket(d);
        if (schemas != null) {
            FlowMatch match = new FlowMatch(schemas);
            Map<String, Map<String, Long>> flows = new java.util.TreeMap<>();
            read.shapes().forEach((component, shapes) -> shapes.forEach((shape, n) -> {
                String f = match.classify(shape);
                flows.computeIfAbsent(component, k -> new java.util.TreeMap<>()).merge(f == null ? "none (catch-all)"
                        : f, n, Long::sum);
            }));
            d.flows(flows);
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
            d.provisionerBucket(new dev.provbench.report.RunReport.ProvisionerBucket("no client-side bucket "
                    + "(--provisioner-kube-api-qps negative)", q, b, false, counts.get("csi-provisioner").requests(),
                    0, 0.0, 0.0, "not bound", null));
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
        d.provisionerBucket(new dev.provbench.report.RunReport.ProvisionerBucket("audit-log replay of a "
                + dev.provbench.report.Rows.num(q) + "/" + b + " token bucket over the receipt times of its "
                + "requests (docs/load.md)", q, b, assumed, r.requests(), r.atLimit(),
                r.requests() == 0 ? null : dev.provbench.report.ReportBuilder.round((double) r.atLimit() / r.requests()),
                dev.provbench.report.ReportBuilder.round(r.boundShare()), verdict, null));
    }
}
