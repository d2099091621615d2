package dev.provbench.measure;

import dev.provbench.kube.RequestStats;
import dev.provbench.load.RunWindow;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code components} in {@code --local}: the stand-in provisioner's and PV controller's own requests in the
 * window (their clients' counts at the window's edges), per op over the window's ops.
 */
public final class StandInRequests implements Measurement {
    /** The stand-in provisioner's name among the clients. */
    public static final String PROVISIONER = "provisioner (stand-in)";
    private final Map<String, RequestStats> clients;
    private final Map<String, Integer> windowEpoch = new LinkedHashMap<>();
    private final Map<String, RequestStats.Snapshot> inWindow = new LinkedHashMap<>();

    /** @param clients component name → its client's stats */
    public StandInRequests(Map<String, RequestStats> clients) {
        this.clients = clients;
    }

    @Override
    public void windowStart(RunWindow w) {
        clients.forEach((k, s) -> windowEpoch.put(k, s.beginEpoch()));
    }

    @Override
    public void windowEnd(RunWindow w) {
        clients.forEach((k, s) -> s.beginEpoch());
    }

    @Override
    public void finish(RunWindow w) {
        clients.forEach((k, s) -> inWindow.put(k, s.epoch(windowEpoch.get(k))));
    }

    @Override
    public void report(ReportDraft d) {
        Map<String, dev.provbench.report.RunReport.Requests> components = new java.util.TreeMap<>();
        inWindow.forEach((k, s) -> components.put(k, ClientRequests.requests(s, d, null)));
        d.put(ClientRequests.COMPONENTS, components.isEmpty() ? null : components);
        RequestStats.Snapshot p = inWindow.get(PROVISIONER);
        if (p != null) { // the stand-in's own bucket: which of its requests waited for a token, exactly
            d.put(AuditLogRequests.BUCKET, new AuditLogRequests.ProvisionerBucket("the stand-in provisioner's own "
                    + "bucket (exact: requests that waited for a token)", null, null, null, p.total(), p.throttled(),
                    p.total() == 0 ? null : dev.provbench.report.ReportBuilder.round((double) p.throttled() / p.total()),
                    null, p.total() == 0 ? null : p.throttled() * 2 >= p.total() ? "bound" : p.throttled() * 10
                    < p.total() ? "not bound" : "partly bound"));
        }
    }
}
