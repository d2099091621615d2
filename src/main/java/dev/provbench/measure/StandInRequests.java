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
        inWindow.forEach((k, s) -> d.component(k, ClientRequests.requests(s, d, null)));
    }
}
