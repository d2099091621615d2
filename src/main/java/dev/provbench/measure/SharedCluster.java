package dev.provbench.measure;

import dev.provbench.load.LoadRun;
import dev.provbench.load.RunWindow;
import dev.provbench.load.Tenants;
import dev.provbench.report.HtmlFormat;
import dev.provbench.report.Rows;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code window.sharedWith}: whether the run had the cluster's provisioning pipeline to itself in the window. Two
 * sources, each the run's own: its PV watch ({@link Tenants}: PVs of claims it did not make, of its StorageClass or
 * its driver, that appeared or went — another tenant's claims handed to the same provisioner) and the driver's call
 * log (CreateVolume/DeleteVolume calls of volumes not the run's, {@link DriverCalls}' {@code otherCalls}). The
 * watch's counts are read right after each window edge, as every counter. What the run's own figures are does not
 * depend on this; the shared ones ({@code scopes} in the report) include the other tenants' work when they were seen.
 */
public final class SharedCluster implements Measurement {

    /**
     * @param shared         true when another tenant was seen, false when none was, null when nothing could tell
     * @param storageClass   the run's StorageClass
     * @param pvsCreated     PVs of other claims of the run's StorageClass or driver that appeared in the window
     * @param pvsDeleted     such PVs that went in the window
     * @param byStorageClass {@code pvsCreated} by StorageClass
     * @param driverCalls    the driver's CreateVolume/DeleteVolume calls of volumes not the run's in the window
     * @param seenBy         the sources that looked
     * @param summary        one line for people
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record SharedWith(Boolean shared, String storageClass, Long pvsCreated, Long pvsDeleted,
                             Map<String, Long> byStorageClass, Long driverCalls, List<String> seenBy, String summary) {

        /** What other tenants did in the window, in one count (0 = alone); null when nothing could tell. */
        public Long activity() {
            if (shared == null) {
                return null;
            }
            return (pvsCreated == null ? 0 : pvsCreated) + (pvsDeleted == null ? 0 : pvsDeleted)
                    + (driverCalls == null ? 0 : driverCalls);
        }
    }

    public static final SectionKind<SharedWith> SHARED_WITH = SectionKind.of("window.sharedWith", SharedWith.class)
            .rows(s -> List.of(new Row("window", "other tenants", s.summary())))
            .headline(s -> Boolean.TRUE.equals(s.shared()) ? "CLUSTER SHARED" : null)
            .html((s, r) -> Boolean.TRUE.equals(s.shared())
                    ? "<p id=\"shared\" class=\"warn\">" + HtmlFormat.esc(s.summary()) + "</p>\n" : "");

    static final String WATCH = "the run's PV watch";
    static final String CALL_LOG = "the driver's call log";

    private final LoadRun run;
    private volatile Tenants.Count atStart; // volatile: the live page reads them from its own thread
    private volatile Tenants.Count atEnd;

    public SharedCluster(LoadRun run) {
        this.run = run;
    }

    @Override
    public void windowStart(RunWindow w) {
        atStart = run.tenants().read();
    }

    @Override
    public void windowEnd(RunWindow w) {
        atEnd = run.tenants().read();
    }

    /** Other tenants' PVs since the window opened (or since the watch started, before it): the live page's line. */
    public String live() {
        Tenants.Count from = atStart;
        Tenants.Count now = atEnd != null ? atEnd : run.tenants().read();
        if (!run.watchesVolumes()) {
            return null;
        }
        long created = now.appeared() - (from == null ? 0 : from.appeared());
        long deleted = now.gone() - (from == null ? 0 : from.gone());
        return created + deleted == 0 ? null : summary(created, deleted, null, 0, from == null ? "so far" : "in the window");
    }

    @Override
    public void report(ReportDraft d) {
        List<String> seenBy = new ArrayList<>();
        Long created = null;
        Long deleted = null;
        Map<String, Long> byClass = null;
        if (run.watchesVolumes() && atStart != null && atEnd != null) {
            seenBy.add(WATCH);
            created = atEnd.appeared() - atStart.appeared();
            deleted = atEnd.gone() - atStart.gone();
            Map<String, Long> m = new java.util.TreeMap<>();
            atEnd.byStorageClass().forEach((k, v) -> {
                long n = v - atStart.byStorageClass().getOrDefault(k, 0L);
                if (n > 0) {
                    m.put(k.isEmpty() ? "(none)" : k, n);
                }
            });
            byClass = m.isEmpty() ? null : m;
        }
        DriverCalls.Driver driver = d.get(DriverCalls.DRIVER);
        Long calls = null;
        if (driver != null && "run".equals(driver.scope()) && driver.otherCalls() != null) {
            seenBy.add(CALL_LOG);
            calls = driver.otherCalls();
        }
        String sc = run.tenants().storageClass();
        if (seenBy.isEmpty()) {
            d.put(SHARED_WITH, new SharedWith(null, sc, null, null, null, null, null, "not known: neither the run's PV "
                    + "watch (--wait-mode poll has none) nor the driver's call log (--driver-url) could tell"));
            return;
        }
        long others = (created == null ? 0 : created) + (deleted == null ? 0 : deleted) + (calls == null ? 0 : calls);
        String summary = others == 0 ? "none seen in the window (" + String.join(", ", seenBy) + ")"
                : summary(created == null ? 0 : created, deleted == null ? 0 : deleted, byClass,
                calls == null ? 0 : calls, "in the window");
        d.put(SHARED_WITH, new SharedWith(others > 0, sc, created, deleted, byClass, calls, seenBy, summary));
        if (others > 0) {
            d.warn(summary + ": the run's own figures (ops, latency, stages, the driver's figures for its volumes) "
                    + "are its own; the shared ones (" + String.join(", ", sharedPaths(d)) + ") include the other "
                    + "tenants' work");
        }
    }

    private String summary(long created, long deleted, Map<String, Long> byClass, long calls, String when) {
        String sc = run.tenants().storageClass();
        StringBuilder b = new StringBuilder("cluster shared: ");
        List<String> parts = new ArrayList<>();
        if (created + deleted > 0) {
            boolean onlyOwnClass = byClass == null || byClass.size() == 1 && byClass.containsKey(sc);
            parts.add(created + " creates and " + deleted + " deletes of other claims of " + (onlyOwnClass
                    ? "StorageClass '" + sc + "'" : "its provisioner (" + Rows.map(byClass) + ")") + " " + when);
        }
        if (calls > 0) {
            parts.add(calls + " driver calls for volumes not the run's " + when);
        }
        return b.append(String.join("; ", parts)).toString();
    }

    /** The report paths whose figures are shared ({@link dev.provbench.report.SectionKind#scope}). */
    private static List<String> sharedPaths(ReportDraft d) {
        List<String> out = new ArrayList<>();
        for (SectionKind<?> k : d.kinds()) {
            if (k.scope() != null && k.scope().startsWith("shared") && !out.contains(k.path())) {
                out.add(k.path());
            }
        }
        if (d.get(DriverCalls.DRIVER) != null) {
            out.add("driver.totals");
        }
        return out;
    }
}
