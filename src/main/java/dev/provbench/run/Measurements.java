package dev.provbench.run;

import dev.provbench.evidence.DriverCounts;
import dev.provbench.evidence.DriverCallSource;
import dev.provbench.evidence.DriverStatsHttp;
import dev.provbench.evidence.HttpGet;
import dev.provbench.evidence.MetricsScrape;
import dev.provbench.evidence.ProcessUsage;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.LoadRun;
import dev.provbench.local.LocalCluster;
import dev.provbench.measure.AuditLogRequests;
import dev.provbench.measure.BulkWave;
import dev.provbench.measure.ClientRequests;
import dev.provbench.measure.ListCosts;
import dev.provbench.measure.DriverCalls;
import dev.provbench.measure.DriverCallTrack;
import dev.provbench.measure.Measurement;
import dev.provbench.measure.OperationStages;
import dev.provbench.measure.Operations;
import dev.provbench.measure.ProvisionerLog;
import dev.provbench.measure.ProvisionerMetrics;
import dev.provbench.measure.Resources;
import dev.provbench.measure.ServerThrottling;
import dev.provbench.measure.SharedCluster;
import dev.provbench.measure.StandingPopulation;
import dev.provbench.measure.StandInRequests;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.net.URI;
import dev.provbench.report.RunReport;
import dev.provbench.report.SectionKind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry: which measurements a run has, built from its checked request, and the report sections each
 * writes. A measurement is one file (the {@link Measurement}, its section types and their {@link SectionKind}s)
 * plus one line here: its kinds and a factory that returns null when the run does not have it. Order matters
 * only in that {@link Operations} reports first (every per-op figure divides by its window ops) and that a
 * measurement may read the sections of those before it.
 */
public final class Measurements {
    /**
     * What the measurements read: the run, its client, (with {@code --local}) the embedded cluster, and the
     * driver in this process when it serves (local runs and {@code provbench serve}).
     */
    record Sources(LoadRun run, KubernetesClient client, RequestStats stats, LocalCluster cluster,
                   DriverCounts inProcessDriver, dev.provbench.csi.CallLog callLog, HttpGet http,
                   Map<URI, MetricsScrape> scrapes, DriverCallTrack[] track, boolean[] trackMade) {
        /** {@code http}: the evidence reads' client, which the caller closes when the run's reports are written. */
        Sources(LoadRun run, KubernetesClient client, RequestStats stats, HttpGet http, LocalCluster cluster,
                DriverCounts inProcessDriver, dev.provbench.csi.CallLog callLog) {
            this(run, client, stats, cluster, inProcessDriver, callLog, http,
                    new java.util.concurrent.ConcurrentHashMap<>(), new DriverCallTrack[1], new boolean[1]);
        }

        /** The driver's call log as the run reads it, one per run, shared by the measurements; null: none. */
        DriverCallTrack driverCalls(RunRequest.Checked c) {
            synchronized (scrapes) {
                if (track[0] == null && !trackMade[0]) {
                    trackMade[0] = true;
                    DriverCallSource source = Measurements.driverCalls(c, this);
                    track[0] = source == null ? null : new DriverCallTrack(source);
                }
                return track[0];
            }
        }

        /** One scrape per metrics page and run, shared by every measurement that reads the page. */
        MetricsScrape scrape(URI url) {
            return scrapes.computeIfAbsent(url, u -> new MetricsScrape(http, u));
        }
    }

    private interface Factory {
        Measurement create(RunRequest.Checked c, Sources s);
    }

    private record Entry(List<SectionKind<?>> kinds, Factory factory) {
    }

    private static Entry entry(Factory f, SectionKind<?>... kinds) {
        return new Entry(List.of(kinds), f);
    }

    private static final List<Entry> REGISTRY = List.of(
            entry((c, s) -> new Operations(s.run()), Operations.WINDOW, Operations.OPS, Operations.LATENCY),
            entry((c, s) -> "bulk".equals(c.config().mode()) ? new BulkWave(s.run()) : null, BulkWave.BULK),
            entry((c, s) -> c.config().population() == null ? null : new StandingPopulation(s.run()),
                    StandingPopulation.POPULATION),
            entry((c, s) -> new ClientRequests(s.stats()), ClientRequests.REQUESTS, ClientRequests.THROTTLING),
            entry((c, s) -> new ListCosts(s.run()), ListCosts.LISTS),
            entry(Measurements::standIns, ClientRequests.COMPONENTS, AuditLogRequests.BUCKET),
            entry(Measurements::driverCounts, DriverCalls.DRIVER),
            entry((c, s) -> new OperationStages(s.run(), s.driverCalls(c), c.records()), OperationStages.STAGES),
            // after DriverCalls: reads its otherCalls
            entry((c, s) -> new SharedCluster(s.run()), SharedCluster.SHARED_WITH),
            entry((c, s) -> c.provisionerLog() == null && c.provisionerPodNamespace() == null ? null
                    : new ProvisionerLog(c.provisionerLog(), s.client(), c.provisionerPodNamespace(),
                    c.provisionerPodSelector(), c.request().provisionerContainer), ProvisionerLog.LOG,
                    ProvisionerLog.LOG_LINES),
            entry((c, s) -> c.provisionerMetrics() == null ? null
                    : new ProvisionerMetrics(s.scrape(c.provisionerMetrics())), ProvisionerMetrics.METRICS),
            entry((c, s) -> c.auditLog() == null ? null : new AuditLogRequests(c.auditLog(),
                    c.request().provisionerKubeApiQps, c.request().provisionerKubeApiBurst, s.client(),
                    AuditLogRequests.ownObjects(dev.provbench.load.RunNamespaces.of(c.config()), s.run().runId(),
                            s.run().stamps())),
                    ClientRequests.COMPONENTS, AuditLogRequests.BUCKET, AuditLogRequests.CLIENTS, AuditLogRequests.OWN),
            entry(Measurements::resources, Resources.RESOURCES),
            // after Resources: its edge reads stay right at the edges
            entry((c, s) -> s.cluster() != null ? null : new ServerThrottling(s.client()), ServerThrottling.SERVER));

    private Measurements() {
    }

    static List<Measurement> of(RunRequest.Checked c, Sources s) {
        List<Measurement> out = new ArrayList<>();
        for (Entry e : REGISTRY) {
            Measurement m = e.factory().create(c, s);
            if (m != null) {
                out.add(m);
            }
        }
        return out;
    }

    /** Every kind of section a report can have, each once, in registry order: what a report is read back by. */
    public static List<SectionKind<?>> kinds() {
        List<SectionKind<?>> out = new ArrayList<>();
        for (Entry e : REGISTRY) {
            for (SectionKind<?> k : e.kinds()) {
                if (out.stream().noneMatch(x -> x == k)) {
                    out.add(k);
                }
            }
        }
        return out;
    }

    /** Reads a report's JSON back with every registered kind. */
    public static RunReport parse(String json) throws com.fasterxml.jackson.core.JsonProcessingException {
        return dev.provbench.report.JsonFormat.parse(json, kinds());
    }

    private static Measurement standIns(RunRequest.Checked c, Sources s) {
        if (s.cluster() == null) {
            return null;
        }
        Map<String, RequestStats> standIns = new LinkedHashMap<>();
        standIns.put("provisioner (stand-in)", s.cluster().standIn().provisionerStats());
        standIns.put("pv-controller (stand-in)", s.cluster().standIn().pvControllerStats());
        return new StandInRequests(standIns);
    }

    /** The driver's counts: this process's driver (local runs, provbench serve), or --driver-url's. */
    private static Measurement driverCounts(RunRequest.Checked c, Sources s) {
        if (s.cluster() == null && c.driverUrl() != null) {
            return new DriverCalls(new DriverStatsHttp(s.http(), c.driverUrl(), org.eclipse.microprofile.config.ConfigProvider
                    .getConfig().getOptionalValue("provbench.api.token", String.class)), s.driverCalls(c),
                    s.run().stamps(), s.run().tenants()::driver);
        }
        return s.inProcessDriver() == null ? null : new DriverCalls(s.inProcessDriver(), s.driverCalls(c),
                s.run().stamps(), s.run().tenants()::driver);
    }

    /** Where the driver's CreateVolume/DeleteVolume times are read: this process's driver, or --driver-url's. */
    private static DriverCallSource driverCalls(RunRequest.Checked c, Sources s) {
        if (s.cluster() == null && c.driverUrl() != null) {
            String file = System.getenv("PROVBENCH_DRIVER_TOKEN_FILE");
            return DriverCallSource.http(s.http(), c.driverUrl(), file == null || file.isBlank() ? null : java.nio.file.Path.of(file),
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
            r.add("driver", ProcessUsage.prometheus(s.scrape(URI.create(base + "/q/metrics"))), null);
        }
        if (c.provisionerMetrics() != null) {
            r.add("csi-provisioner", ProcessUsage.prometheus(s.scrape(c.provisionerMetrics())), null);
        }
        c.processes().forEach((name, pid) -> r.add(name, ProcessUsage.pid(pid), null));
        return r;
    }
}
