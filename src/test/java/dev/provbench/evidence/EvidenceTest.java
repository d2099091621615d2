package dev.provbench.evidence;


import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EvidenceTest {
    static final ZoneId UTC = ZoneId.of("UTC");

    @Test
    void countsEveryClientGoThrottlingVariantInsideTheWindow() throws Exception {
        String log = String.join("\n",
                "I1130 20:00:00.500000   42 request.go:752] \"Waited before sending request\" delay=\"1.2s\" "
                        + "reason=\"client-side throttling, not priority and fairness\" verb=\"POST\" URL=\"https://x\"",
                "I1130 20:00:01.000000   42 request.go:697] Waited for 1.19s due to client-side throttling, not "
                        + "priority and fairness, request: POST:https://x",
                "I1130 20:00:02.000000   42 request.go:621] Throttling request took 1.1s, request: GET:https://x",
                "I1130 20:00:03.000000   42 controller.go:1] provisioned volume pvc-1",
                "I1130 19:59:59.000000   42 request.go:752] \"Waited before sending request\" reason=\"client-side "
                        + "throttling, not priority and fairness\"",
                "I1130 20:10:00.000000   42 request.go:752] \"Waited before sending request\" reason=\"client-side "
                        + "throttling, not priority and fairness\"",
                "2026-11-30T20:00:04.5Z I1130 20:00:04.500000 1 request.go:1] Waited for 2s due to client-side "
                        + "throttling, not priority and fairness, request: GET:https://x");
        long n = ThrottlingLines.count(new StringReader(log), Instant.parse("2026-11-30T20:00:00Z"),
                Instant.parse("2026-11-30T20:05:00Z"), UTC);
        assertEquals(4, n, "three variants plus a kubectl --timestamps line; outside the window not counted");
    }

    @Test
    void auditLogByComponent(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("audit.log");
        String ev = "{\"kind\":\"Event\",\"stage\":\"%s\",\"requestReceivedTimestamp\":\"%s\",\"verb\":\"%s\","
                + "\"user\":{\"username\":\"%s\"},\"objectRef\":{\"resource\":\"%s\",\"subresource\":\"%s\"},"
                + "\"responseStatus\":{\"code\":%d}}";
        Files.writeString(log, String.join("\n",
                String.format(ev, "ResponseComplete", "2026-11-30T20:00:01Z", "create", "provbench-load",
                        "persistentvolumeclaims", "", 201),
                String.format(ev, "ResponseComplete", "2026-11-30T20:00:02Z", "create", "csi-provisioner",
                        "persistentvolumes", "", 201),
                String.format(ev, "ResponseStarted", "2026-11-30T20:00:02Z", "watch", "csi-provisioner",
                        "persistentvolumes", "", 200),
                String.format(ev, "ResponseComplete", "2026-11-30T20:00:03Z", "update",
                        "system:kube-controller-manager", "persistentvolumeclaims", "status", 200),
                String.format(ev, "ResponseComplete", "2026-11-30T21:00:00Z", "create", "provbench-load",
                        "persistentvolumeclaims", "", 201)) + "\n");
        Map<String, AuditLog.Counts> c = AuditLog.byComponent(log, Instant.parse("2026-11-30T20:00:00Z"),
                Instant.parse("2026-11-30T20:01:00Z"));
        assertEquals(1, c.get("provbench (load driver)").requests());
        assertEquals(Map.of("create persistentvolumes", 1L), c.get("csi-provisioner").byVerbResource());
        assertEquals(Map.of("update persistentvolumeclaims/status", 1L),
                c.get("kube-controller-manager").byVerbResource());
    }

    @Test
    void metricsParse() {
        String text = String.join("\n",
                "# HELP csi_sidecar_operations_seconds ...",
                "csi_sidecar_operations_seconds_count{driver_name=\"d\",grpc_status_code=\"OK\","
                        + "method_name=\"/csi.v1.Controller/CreateVolume\"} 12",
                "csi_sidecar_operations_seconds_sum{driver_name=\"d\",grpc_status_code=\"OK\","
                        + "method_name=\"/csi.v1.Controller/CreateVolume\"} 0.5",
                "process_cpu_seconds_total 3.25",
                "process_resident_memory_bytes 7.1e+07",
                "workqueue_depth{name=\"claims\"} 4");
        Map<String, Double> m = MetricsScrape.operations(text);
        assertEquals(Map.of("csi_sidecar_operations CreateVolume OK", 12.0), m);
        MetricsScrape.Process p = MetricsScrape.process(text);
        assertEquals(3.25, p.cpuSeconds());
        assertEquals(7.1e7, p.rssBytes());
        assertTrue(Double.isNaN(p.startTimeSeconds()));
        assertNull(MetricsScrape.process("process_cpu_seconds_total 1"));
    }

    @Test
    void counterIncreaseTreatsADropAsARestart() {
        CounterTrack t = new CounterTrack();
        t.add(1, Map.of("a", 10.0, "b", 50.0), Double.NaN);
        t.add(2, Map.of("a", 15.0, "b", 7.0, "c", 2.0), Double.NaN);
        CounterTrack.Increase inc = t.increase(1, 2);
        assertEquals(Map.of("a", 5.0, "b", 7.0, "c", 2.0), inc.values());
        assertEquals(1, inc.resets());
    }

    @Test
    void aNewProcessStartCountsEverySeriesFromZeroAndTheSegmentsAreSummed() {
        CounterTrack t = new CounterTrack();
        t.add(10, Map.of("ops", 100.0), 1000.0); // before the window
        t.add(20, Map.of("ops", 140.0), 1000.0); // window start
        t.add(30, Map.of("ops", 170.0), 1000.0); // last read before the restart
        t.add(40, Map.of("ops", 190.0), 2000.0); // restarted and already past the old value: still a reset
        t.add(50, Map.of("ops", 230.0), 2000.0); // window end
        t.add(60, Map.of("ops", 5.0), 3000.0); // after the window
        CounterTrack.Increase w = t.increase(20, 50);
        assertEquals(30 + 190 + 40, w.get("ops"), 1e-9);
        assertEquals(1, w.resets());
        assertEquals(20, w.fromNanos());
        assertEquals(50, w.toNanos());
        CounterTrack.Increase quiet = t.increase(20, 30);
        assertEquals(30, quiet.get("ops"), 1e-9);
        assertEquals(0, quiet.resets());
        assertNull(t.increase(5, 50), "no read at or before the start");
        assertEquals(0, t.increase(25, 25).get("ops"), 1e-9);
    }
}
