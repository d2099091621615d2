package dev.provbench.run;

import dev.provbench.evidence.DriverCounts;
import dev.provbench.evidence.DriverCallSource;
import dev.provbench.evidence.DriverStatsHttp;
import dev.provbench.evidence.MetricsScrape;
import dev.provbench.evidence.ProcessUsage;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.LoadRun;
import dev.provbench.local.LocalCluster;
import dev.provbench.measure.AuditLogRequests;
import dev.provbench.measure.ClientRequests;
import dev.provbench.measure.DriverCalls;
import dev.provbench.measure.Measurement;
import dev.provbench.measure.OperationStages;
import dev.provbench.measure.Operations;
import dev.provbench.measure.ProvisionerLog;
import dev.provbench.measure.ProvisionerMetrics;
import dev.provbench.measure.Resources;
import dev.provbench.measure.ServerThrottling;
import dev.provbench.measure.StandInRequests;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry: which measurements a run has, built from its checked request. Order matters only in that
 * {@link Operations} reports first (every per-op figure divides by its window ops).
 */
final class Measurements {
    /**
     * What the measurements read: the run, its client, (with {@code --local}) the embedded cluster, and the
     * driver in this process when it serves (local runs and {@code provbench serve}).
     */
    record Sources(LoadRun run, KubernetesClient client, RequestStats stats, LocalCluster cluster,
                   DriverCounts inProcessDriver, dev.provbench.csi.CallLog callLog) {
    }

    private Measurements() {
    }

    static List<Measurement> of(RunRequest.Checked c, Sources s) {
        List<Measurement> out = new ArrayList<>();
        out.add(new Operations(s.run()));
        out.add(new ClientRequests(s.stats()));
        if (s.cluster() != null) {
            Map<String, RequestStats> standIns = new LinkedHashMap<>();
            standIns.put("provisioner (stand-in)", s.cluster().standIn().provisionerStats());
            standIns.put("pv-controller (stand-in)", s.cluster().standIn().pvControllerStats());
            out.add(new StandInRequests(standIns));
            out.add(new DriverCalls(s.inProcessDriver()));
        } else if (c.driverUrl() != null) {
            out.add(new DriverCalls(new DriverStatsHttp(c.driverUrl(), org.eclipse.microprofile.config.ConfigProvider
                    .getConfig().getOptionalValue("provbench.api.token", String.class))));
        } else if (s.inProcessDriver() != null) { // provbench serve: this process is the driver
            out.add(new DriverCalls(s.inProcessDriver()));
        }
        out.add(new OperationStages(s.run(), driverCalls(c, s), c.records()));
        if (c.provisionerLog() != null || c.provisionerPodNamespace() != null) {
            out.add(new ProvisionerLog(c.provisionerLog(), s.client(), c.provisionerPodNamespace(),
                    c.provisionerPodSelector(), c.request().provisionerContainer));
        }
        if (c.provisionerMetrics() != null) {
            out.add(new ProvisionerMetrics(new MetricsScrape(c.provisionerMetrics())));
        }
        if (c.auditLog() != null) {
            out.add(new AuditLogRequests(c.auditLog(), c.request().provisionerKubeApiQps,
                    c.request().provisionerKubeApiBurst, s.client()));
        }
        out.add(resources(c, s));
        if (s.cluster() == null) { // after Resources: its edge reads stay right at the edges
            out.add(new ServerThrottling(s.client()));
        }
        return out;
    }

    /** Where the driver's CreateVolume/DeleteVolume times are read: this process's driver, or --driver-url's. */
    private static DriverCallSource driverCalls(RunRequest.Checked c, Sources s) {
        if (s.cluster() == null && c.driverUrl() != null) {
            String file = System.getenv("PROVBENCH_DRIVER_TOKEN_FILE");
            return DriverCallSource.http(c.driverUrl(), file == null || file.isBlank() ? null : java.nio.file.Path.of(file),
                    org.eclipse.microprofile.config.ConfigProvider.getConfig().getOptionalValue("provbench.api.token",
                            String.class));
        }
        return s.callLog() == null ? null : DriverCallSource.inProcess(s.callLog());
    }

    private static Resources resources(RunRequest.Checked c, Sources s) {
        Resources r = new Resources().add("tool", ProcessUsage.self(), s.cluster() == null ? null
                : "--local: this JVM also holds the mock driver, the in-memory API and the stand-ins");
        if (c.driverUrl() != null) {
            String base = c.driverUrl().toString().replaceAll("/+$", "");
            r.add("driver", ProcessUsage.prometheus(new MetricsScrape(URI.create(base + "/q/metrics"))), null);
        }
        if (c.provisionerMetrics() != null) {
            r.add("csi-provisioner", ProcessUsage.prometheus(new MetricsScrape(c.provisionerMetrics())), null);
        }
        c.processes().forEach((name, pid) -> r.add(name, ProcessUsage.pid(pid), null));
        return r;
    }
}
