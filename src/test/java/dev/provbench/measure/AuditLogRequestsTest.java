package dev.provbench.measure;

import dev.provbench.load.RunWindow;
import dev.provbench.report.RunReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AuditLogRequestsTest {
    private static final Instant T0 = Instant.parse("2026-12-03T00:00:00Z");
    private static final RunReport.Latency NONE = new RunReport.Latency(0, 0, 0, 0, 0, 0, 0);

    /**
     * An audit log of csi-provisioner's requests: {@code first} at once, then one every {@code every} seconds for
     * 60 s (a saturated 5/10 client-go bucket: 10 at once, then one per 200 ms).
     */
    private static Path log(Path dir, int first, double every) throws Exception {
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < first; i++) {
            times.add(0.0);
        }
        for (double t = every; t < 60; t += every) {
            times.add(t);
        }
        List<String> lines = new ArrayList<>();
        for (double t : times) {
            lines.add("{\"stage\":\"ResponseComplete\",\"requestReceivedTimestamp\":\"" + T0.plusNanos((long) (t * 1e9))
                    + "\",\"user\":{\"username\":\"system:serviceaccount:provbench:csi-provisioner\",\"groups\":"
                    + "[\"system:serviceaccounts\"]},\"verb\":\"create\",\"objectRef\":{\"resource\":\"persistentvolumes\"},"
                    + "\"requestURI\":\"/api/v1/persistentvolumes\",\"responseStatus\":{\"code\":201}}");
        }
        Path p = dir.resolve("audit-" + first + "-" + every + ".log");
        Files.write(p, lines);
        return p;
    }

    private static AuditLogRequests.ProvisionerBucket replay(Path log, Double qps, Integer burst, List<String> warnings) {
        AuditLogRequests m = new AuditLogRequests(log, qps, burst, null);
        RunWindow w = new RunWindow(T0, 0, 1_000_000_000L, 60_000_000_000L, false);
        m.finish(w);
        ReportDraft d = new ReportDraft(new ReportDraft.Grid(w, 10_000_000_000L, 60_000_000_000L));
        Operations.OpLatency l = new Operations.OpLatency(NONE, NONE, NONE);
        d.put(Operations.OPS, new Operations.Ops(1, 1, 0, Map.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        d.put(Operations.LATENCY, new Operations.Latencies(l, l));
        d.put(ClientRequests.REQUESTS, new RunReport.Requests(0, Map.of(), Map.of(), Map.of(), null, null));
        d.put(ClientRequests.THROTTLING, new ClientRequests.Throttling(0, 0, 0, 0, 0, 0, 0, 0));
        m.report(d);
        RunReport r = d.build("t", "cluster", "id", null, null, null);
        if (r.warnings() != null) {
            warnings.addAll(r.warnings());
        }
        return r.section(AuditLogRequests.BUCKET);
    }

    @Test
    void aSaturatedBucketIsBoundAndOneFasterThanTheBucketIsInconsistent(@TempDir Path dir) throws Exception {
        List<String> warnings = new ArrayList<>();
        AuditLogRequests.ProvisionerBucket paced = replay(log(dir, 10, 0.2), 5.0, 10, warnings);
        assertEquals("bound", paced.verdict(), paced.toString());
        assertTrue(warnings.isEmpty(), warnings.toString());
        // 100 requests a second cannot come out of a 5/10 bucket: the replay says so instead of "bound"
        AuditLogRequests.ProvisionerBucket fast = replay(log(dir, 0, 0.01), null, null, warnings);
        assertEquals("inconsistent", fast.verdict(), fast.toString());
        assertTrue(fast.assumed());
        assertTrue(warnings.stream().anyMatch(x -> x.contains("are not these")), warnings.toString());
        // given as unlimited: not bound
        assertEquals("not bound", replay(log(dir, 0, 0.01), -1.0, 10, warnings).verdict());
    }

    private static String line(double t, String user, String verb, String resource, String ns, String name) {
        return "{\"stage\":\"ResponseComplete\",\"requestReceivedTimestamp\":\"" + T0.plusNanos((long) (t * 1e9))
                + "\",\"user\":{\"username\":\"" + user + "\",\"groups\":[]},\"verb\":\"" + verb
                + "\",\"objectRef\":{\"resource\":\"" + resource + "\"" + (ns == null ? "" : ",\"namespace\":\"" + ns + "\"")
                + (name == null ? "" : ",\"name\":\"" + name + "\"") + "},\"requestURI\":\"/x\","
                + "\"responseStatus\":{\"code\":200}}";
    }

    @Test
    void theRequestsOnTheRunsOwnObjectsAreToldApart(@TempDir Path dir) throws Exception {
        String prov = "system:serviceaccount:provbench:csi-provisioner";
        String kcm = "system:kube-controller-manager";
        Path log = dir.resolve("audit-own.log");
        Files.write(log, List.of(
                line(1, prov, "create", "persistentvolumes", null, "pvc-u1"), // the run's claim's PV
                line(2, prov, "create", "persistentvolumes", null, "pvc-u9"), // another tenant's
                line(3, prov, "create", "events", "ns", "pb-r1-1.18a2"), // an Event about the run's claim
                line(4, prov, "create", "events", "other", "pb-r1-1.18a2"), // same name, another namespace
                line(5, prov, "list", "persistentvolumes", null, null), // names no object
                line(6, kcm, "update", "persistentvolumeclaims", "ns", "pb-r1-1"),
                line(7, kcm, "update", "persistentvolumeclaims", "ns", "pb-r2-1"), // another run's claim
                line(70, prov, "delete", "persistentvolumes", null, "pvc-u1"))); // after the window
        dev.provbench.load.Stamps stamps = new dev.provbench.load.Stamps();
        stamps.own("u1");
        AuditLogRequests m = new AuditLogRequests(log, 5.0, 10, null, AuditLogRequests.ownObjects(new dev.provbench.load.RunNamespaces("ns", 1), "r1", stamps));
        RunWindow w = new RunWindow(T0, 0, 0, 60_000_000_000L, false);
        m.finish(w);
        ReportDraft d = new ReportDraft(new ReportDraft.Grid(w, 10_000_000_000L, 60_000_000_000L));
        Operations.OpLatency l = new Operations.OpLatency(NONE, NONE, NONE);
        d.put(Operations.OPS, new Operations.Ops(1, 1, 0, Map.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        d.put(Operations.LATENCY, new Operations.Latencies(l, l));
        m.report(d);
        RunReport r = d.build("t", "cluster", "id", null, null, null);
        Map<String, AuditLogRequests.OwnRequests> own = r.section(AuditLogRequests.OWN);
        assertEquals(2, own.get("csi-provisioner").requests(), own.toString());
        assertEquals(Map.of("create events", 1L, "create persistentvolumes", 1L),
                own.get("csi-provisioner").byVerbResource());
        assertEquals(1.0, own.get("csi-provisioner").perOp(), "2 requests over 2 window ops");
        assertEquals(1, own.get("kube-controller-manager").requests());
        assertEquals(5, r.section(ClientRequests.COMPONENTS).get("csi-provisioner").total(), "all of its window's");
    }
}
