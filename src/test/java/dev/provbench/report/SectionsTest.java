package dev.provbench.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.provbench.load.RunWindow;
import dev.provbench.measure.AuditLogRequests;
import dev.provbench.measure.Measurement;
import dev.provbench.measure.Operations;
import dev.provbench.measure.ProvisionerLog;
import dev.provbench.measure.ReportDraft;
import dev.provbench.run.Measurements;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Report sections as plug-ins: a measurement nobody else knows of — its value type, its kind and its
 * {@link Measurement} all in this test — reaches every renderer (JSON, table, Markdown, HTML, bench and its units)
 * and reads back, without a line changed in any of them.
 */
class SectionsTest {

    /** The fourth measurement's value: how many volumes a (made-up) snapshot controller saw. */
    record Snapshots(long taken, double perSecond) {
    }

    static final SectionKind<Snapshots> SNAPSHOTS = SectionKind.of("snapshots.controller", Snapshots.class)
            .rows(s -> List.of(Rows.row("snapshots", "taken", s.taken() + " (" + Rows.num(s.perSecond()) + "/s)")))
            .metrics(List.of(SectionKind.Unit.higher("snapshots/s")), s -> List.of(
                    SectionKind.Metric.of("snapshots/s", s.perSecond())))
            .html((s, r) -> "<p id=\"snapshots\">" + s.taken() + "</p>\n")
            .headline(s -> s.taken() + " snapshots");

    /** The whole measurement: it reports one section of its own kind. */
    static final class SnapshotCount implements Measurement {
        @Override
        public void report(ReportDraft d) {
            d.put(SNAPSHOTS, new Snapshots(42, 0.7));
        }
    }

    private static final RunReport.Latency NONE = new RunReport.Latency(0, 0, 0, 0, 0, 0, 0);

    private static ReportDraft draft() {
        RunWindow w = new RunWindow(Instant.parse("2026-12-03T10:00:00Z"), 0, 1_000_000_000L, 61_000_000_000L, false);
        ReportDraft d = new ReportDraft(new ReportDraft.Grid(w, 10_000_000_000L, 62_000_000_000L));
        Operations.OpLatency l = new Operations.OpLatency(NONE, NONE, NONE);
        d.put(Operations.OPS, new Operations.Ops(30, 30, 0, Map.of(), 1, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        d.put(Operations.LATENCY, new Operations.Latencies(l, l));
        return d;
    }

    private static RunReport report() {
        ReportDraft d = draft();
        new SnapshotCount().report(d);
        return d.build("t", "local", "r1", JsonFormat.config(Map.of("threads", 4, "qps", 5.0, "burst", 10,
                "waitMode", "informer", "storageClass", "sc")), null, null);
    }

    @Test
    void aFourthMeasurementReachesEveryRendererAndReadsBack() throws Exception {
        RunReport r = report();
        String json = new JsonFormat().render(r);
        JsonNode tree = JsonFormat.MAPPER.readTree(json);
        assertEquals(42, tree.path("snapshots").path("controller").path("taken").asLong(), json);
        assertEquals(30, tree.path("ops").path("creates").asLong(), json);

        String table = new TableFormat().render(r);
        assertTrue(table.contains("SNAPSHOTS\n  taken") && table.contains("42 (0.700/s)"), table);
        assertTrue(new MarkdownFormat().render(r).contains("| snapshots | taken | 42 (0.700/s) |"));
        String html = new HtmlFormat().render(r);
        assertTrue(html.contains("<p id=\"snapshots\">42</p>"), html);
        assertTrue(html.contains("42 snapshots"), "its part of the headline");

        String bench = new BenchFormat().render(r);
        assertTrue(bench.contains("BenchmarkPVCChurn/mode=local/qps=5.00000/burst=10/wait=informer-4\t60\t"), bench);
        assertTrue(bench.contains("\t0.700000 snapshots/s"), bench);
        assertTrue(bench.contains("Unit snapshots/s better=higher\n"), bench);
        assertTrue(bench.contains("Unit ops/s better=higher\n"), bench);

        List<SectionKind<?>> kinds = new ArrayList<>(Measurements.kinds());
        kinds.add(SNAPSHOTS);
        assertEquals(r, JsonFormat.parse(json, kinds), "written and read back");
        assertFalse(JsonFormat.parse(json, Measurements.kinds()).sections().stream()
                .anyMatch(s -> s.kind() == SNAPSHOTS), "a reader that does not know the kind skips it");
    }

    @Test
    void twoKindsMayShareAnObjectButNotAField() throws Exception {
        ReportDraft d = draft();
        d.put(AuditLogRequests.BUCKET, new AuditLogRequests.ProvisionerBucket("audit-log replay", 5.0, 10, false,
                100, 80, 0.8, 0.9, "bound"));
        d.put(ProvisionerLog.LOG_LINES, new ProvisionerLog.LogLines(7));
        JsonNode bucket = d.build("t", "cluster", "r2", null, null, null).json().path("throttling")
                .path("provisioner");
        assertEquals("bound", bucket.path("verdict").asText());
        assertEquals(7, bucket.path("logLines").asLong(), "written beside the estimate by another measurement");

        ReportDraft twice = draft();
        twice.put(ProvisionerLog.LOG_LINES, new ProvisionerLog.LogLines(1));
        twice.put(ProvisionerLog.LOG_LINES, new ProvisionerLog.LogLines(2));
        RunReport bad = twice.build("t", "cluster", "r3", null, null, null);
        assertThrows(IllegalStateException.class, bad::json);
    }

    @Test
    void aMetricWithoutItsUnitIsABug() {
        SectionKind<Snapshots> undeclared = SectionKind.of("snapshots", Snapshots.class).metrics(List.of(),
                s -> List.of(SectionKind.Metric.of("snapshots/s", s.perSecond())));
        ReportDraft d = draft();
        d.put(undeclared, new Snapshots(1, 1));
        RunReport r = d.build("t", "local", "r4", null, null, null);
        assertThrows(IllegalStateException.class, () -> BenchFormat.line(r, "BenchmarkX"));
    }

    @Test
    void everyRegisteredKindHasAPathOfItsOwnTypeOrSharesOnlyDisjointFields() {
        List<SectionKind<?>> kinds = Measurements.kinds();
        assertEquals(kinds.size(), kinds.stream().distinct().count(), "each kind once");
        assertTrue(kinds.stream().anyMatch(k -> k.path().equals("latency.stages")));
        assertTrue(kinds.stream().anyMatch(k -> k.path().equals("throttling.server")));
        String units = BenchFormat.units(kinds);
        for (String u : new String[]{"ops/s", "cycles/s", "create-pipeline-p50-ms", "delete-total-p99-ms", "req/op",
            "throttled", "failures", "tool-cpu-ms/op", "provisioner-throttling-lines"}) {
            assertTrue(units.contains("Unit " + u + " better="), u + " in\n" + units);
        }
    }

    @Test
    void aSharedClusterIsSaidInEveryFormAndScopesAreWritten() throws Exception {
        ReportDraft d = draft();
        d.put(Operations.WINDOW, new Operations.Window("a", "b", 1, false, 60, "steady", "r", 10, 0.0, List.of(0.0,
                0.0), 0.1, 0.0, 60, 1, null));
        String summary = "cluster shared: 58 creates and 60 deletes of other claims of StorageClass 'x' in the window";
        d.put(dev.provbench.measure.SharedCluster.SHARED_WITH, new dev.provbench.measure.SharedCluster.SharedWith(true,
                "x", 58L, 60L, Map.of("x", 58L), 0L, List.of("the run's PV watch"), summary));
        d.put(ProvisionerLog.LOG_LINES, new ProvisionerLog.LogLines(3));
        RunReport r = d.build("t", "cluster", "id", null, null, null);
        String html = new HtmlFormat().render(r);
        assertTrue(html.contains("CLUSTER SHARED"), "the headline");
        assertTrue(html.contains("<p id=\"shared\" class=\"warn\">" + HtmlFormat.esc(summary)), html);
        assertTrue(new TableFormat().render(r).contains("other tenants"), "the window's row");
        JsonNode json = r.json();
        assertEquals(58, json.at("/window/sharedWith/pvsCreated").asLong());
        assertTrue(json.at("/scopes/throttling.provisioner").asText().startsWith("shared"), json.at("/scopes").toString());
        assertTrue(new TableFormat().render(r).contains("scope"), "the shared section's scope row");
        RunReport back = Measurements.parse(new JsonFormat().render(r));
        assertEquals(Boolean.TRUE, back.section(dev.provbench.measure.SharedCluster.SHARED_WITH).shared());
    }
}
