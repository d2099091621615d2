package dev.provbench.measure;

import dev.provbench.csi.CallLog;
import dev.provbench.evidence.DriverCallSource;
import dev.provbench.evidence.DriverCounts;
import dev.provbench.load.Stamps;
import dev.provbench.load.RunWindow;
import dev.provbench.report.RunReport;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DriverCallsTest {
    private static final RunReport.Latency NONE = new RunReport.Latency(0, 0, 0, 0, 0, 0, 0);

    /** Hands out scripted reads, one per call. */
    private static DriverCounts scripted(DriverCounts.Read... reads) {
        Deque<DriverCounts.Read> left = new ArrayDeque<>(List.of(reads));
        return new DriverCounts() {
            public Read read() {
                return left.poll();
            }

            public String source() {
                return "scripted";
            }
        };
    }

    /** A read of a driver that started at {@code start}: created/deleted volumes, OK and UNAVAILABLE answers. */
    private static DriverCounts.Read read(long volumes, long unavailable, long injected, double start) {
        return DriverCounts.of(volumes, volumes, Map.of("CreateVolume", Map.of("OK", volumes, "UNAVAILABLE",
                unavailable), "DeleteVolume", Map.of("OK", volumes)), injected == 0 ? Map.of()
                : Map.of("CreateVolume/UNAVAILABLE", injected), start);
    }

    private static RunReport run(DriverCalls m, long creates, long failures) throws Exception {
        long start = System.nanoTime();
        m.windowStart(null);
        m.sample(System.nanoTime());
        m.sample(System.nanoTime());
        m.windowEnd(null);
        long end = System.nanoTime();
        RunWindow w = new RunWindow(Instant.now(), start, start, end, false);
        ReportDraft d = new ReportDraft(new ReportDraft.Grid(w, Math.max(1, end - start), end));
        Operations.OpLatency l = new Operations.OpLatency(NONE, NONE, NONE);
        d.put(Operations.OPS, new Operations.Ops(creates, creates, failures, Map.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        d.put(Operations.LATENCY, new Operations.Latencies(l, l));
        m.report(d);
        return d.build("t", "local", "id", null, null, null);
    }

    @Test
    void ownAndInjectedErrorsApartAndTheToolAgrees() throws Exception {
        RunReport r = run(new DriverCalls(scripted(read(10, 1, 0, 5), read(20, 3, 1, 5), read(30, 6, 3, 5),
                read(40, 7, 4, 5)), null, null), 30, 0);
        DriverCalls.Driver d = r.section(DriverCalls.DRIVER);
        assertEquals("driver", d.scope(), "no call log: the totals only");
        assertNull(d.createVolume());
        assertEquals(30, d.totals().createVolume());
        assertEquals(30, d.totals().createVolumeCalls());
        assertEquals(Map.of("CreateVolume UNAVAILABLE", 2L), d.totals().errors(), "6 answers, 4 of them injected");
        assertEquals(Map.of("CreateVolume UNAVAILABLE", 4L), d.totals().injected());
        assertNull(d.resets());
        assertEquals("ok", d.agreement().status());
        assertEquals("driver totals", d.agreement().basis());
        assertNull(r.warnings());
    }

    @Test
    void aRestartedDriverIsSummedAndSaysReset() throws Exception {
        // 10 → 25 (+15), restart (start time 5 → 9) at 4 (+4), → 19 (+15): 34 in the window
        RunReport r = run(new DriverCalls(scripted(read(10, 0, 0, 5), read(25, 0, 0, 5), read(4, 0, 0, 9),
                read(19, 0, 0, 9)), null, null), 36, 0);
        DriverCalls.Driver d = r.section(DriverCalls.DRIVER);
        assertEquals(34, d.totals().createVolume());
        assertEquals(1, d.resets());
        assertEquals("reset", d.agreement().status());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("driver restarted 1 time")), r.warnings()
                .toString());
    }

    @Test
    void aDriverThatRanBehindTheToolIsAMismatch() throws Exception {
        RunReport r = run(new DriverCalls(scripted(read(10, 0, 0, 5), read(20, 0, 0, 5), read(30, 0, 0, 5),
                read(40, 0, 0, 5)), null, null), 45, 2);
        assertEquals("mismatch", r.section(DriverCalls.DRIVER).agreement().status());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("disagree")), r.warnings().toString());
    }

    /** A driver's call log the test writes into (the interceptor's entry point is package-private to csi). */
    private static final class Log {
        final java.util.List<CallLog.Call> calls = new java.util.ArrayList<>();
        long missedNext;

        void add(String method, String name, String id, String code, boolean injected) {
            calls.add(new CallLog.Call(calls.size() + 1, method, name, id, 1, 2, code, injected));
        }

        DriverCallSource source() {
            return new DriverCallSource() {
                public CallLog.Page read(long after, int limit) {
                    java.util.List<CallLog.Call> out = calls.stream().filter(c -> c.seq() > after).limit(limit)
                            .toList();
                    long missed = missedNext;
                    missedNext = 0;
                    return new CallLog.Page(out, out.isEmpty() ? after : out.get(out.size() - 1).seq(), missed);
                }

                public String source() {
                    return "test log";
                }

                public boolean sameClock() {
                    return true;
                }
            };
        }
    }

    private static RunReport shared(Log log, Stamps stamps, long creates, DriverCallTrack track) throws Exception {
        DriverCalls m = new DriverCalls(scripted(read(0, 0, 0, 5), read(0, 0, 0, 5), read(60, 0, 0, 5),
                read(60, 0, 0, 5)), track, stamps);
        m.runStart(null, 1, 1);
        log.add("CreateVolume", "pvc-before", "v-before", "OK", false); // before the window: not counted
        long start = System.nanoTime();
        m.windowStart(null);
        for (int i = 0; i < 20; i++) { // the run's: 20 volumes made, 20 deleted (each DeleteVolume sent twice)
            String uid = "own-" + i;
            stamps.own(uid);
            log.add("CreateVolume", "pvc-" + uid, "v-own-" + i, "OK", false);
            log.add("CreateVolume", "pvc-" + uid, "v-own-" + i, "OK", false); // idempotent repeat
            log.add("DeleteVolume", "v-own-" + i, null, "OK", false);
            log.add("DeleteVolume", "v-own-" + i, null, "OK", false); // the volume is already gone
        }
        log.add("CreateVolume", "pvc-own-0", null, "UNAVAILABLE", true);
        log.add("CreateVolume", "pvc-own-1", null, "INTERNAL", false);
        for (int i = 0; i < 40; i++) { // another run's: not the run's, however many
            log.add("CreateVolume", "pvc-other-" + i, "v-other-" + i, "OK", false);
            log.add("DeleteVolume", "v-other-" + i, null, i % 2 == 0 ? "OK" : "UNAVAILABLE", i % 4 == 1);
        }
        m.sample(System.nanoTime());
        m.windowEnd(null);
        log.add("CreateVolume", "pvc-own-99", "v-own-99", "OK", false); // after the window
        m.finish(null);
        long end = System.nanoTime();
        RunWindow w = new RunWindow(Instant.now(), start, start, end, false);
        ReportDraft d = new ReportDraft(new ReportDraft.Grid(w, Math.max(1, end - start), end));
        Operations.OpLatency l = new Operations.OpLatency(NONE, NONE, NONE);
        d.put(Operations.OPS, new Operations.Ops(creates, creates, 0, Map.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        d.put(Operations.LATENCY, new Operations.Latencies(l, l));
        m.report(d);
        return d.build("t", "cluster", "id", null, null, null);
    }

    @Test
    void anotherTenantOfTheDriverChangesTheTotalsOnly() throws Exception {
        Log log = new Log();
        RunReport r = shared(log, new Stamps(), 20, new DriverCallTrack(log.source()));
        DriverCalls.Driver d = r.section(DriverCalls.DRIVER);
        assertEquals("run", d.scope());
        assertEquals(20, d.createVolume(), "the run's volumes, made once each");
        assertEquals(20, d.deleteVolume());
        assertEquals(40, d.createVolumeCalls(), "idempotent repeats are calls, not volumes");
        assertEquals(40, d.deleteVolumeCalls());
        assertEquals(Map.of("CreateVolume INTERNAL", 1L), d.errors());
        assertEquals(Map.of("CreateVolume UNAVAILABLE", 1L), d.injected());
        assertEquals(80, d.otherCalls(), "the other run's 40 CreateVolume and 40 DeleteVolume");
        assertEquals(60, d.totals().createVolume(), "the driver's counters: both runs");
        assertEquals("ok", d.agreement().status(), d.agreement().toString());
        assertEquals("own volumes", d.agreement().basis());
        assertNull(d.incomplete());
        assertNull(r.warnings());
    }

    @Test
    void callsLostBeforeTheyWereReadAreSaidNotGuessed() throws Exception {
        Log log = new Log();
        log.missedNext = 0;
        DriverCallTrack track = new DriverCallTrack(log.source());
        Stamps stamps = new Stamps();
        DriverCalls m = new DriverCalls(scripted(read(0, 0, 0, 5), read(10, 0, 0, 5)), track, stamps);
        m.runStart(null, 1, 1);
        long start = System.nanoTime();
        m.windowStart(null);
        for (int i = 0; i < 5; i++) {
            stamps.own("u" + i);
            log.add("CreateVolume", "pvc-u" + i, "v" + i, "OK", false);
        }
        log.missedNext = 7; // the ring overwrote 7 calls before this read
        m.windowEnd(null);
        long end = System.nanoTime();
        RunWindow w = new RunWindow(Instant.now(), start, start, end, false);
        ReportDraft d = new ReportDraft(new ReportDraft.Grid(w, Math.max(1, end - start), end));
        Operations.OpLatency l = new Operations.OpLatency(NONE, NONE, NONE);
        d.put(Operations.OPS, new Operations.Ops(10, 0, 0, Map.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        d.put(Operations.LATENCY, new Operations.Latencies(l, l));
        m.report(d);
        RunReport r = d.build("t", "cluster", "id", null, null, null);
        DriverCalls.Driver dr = r.section(DriverCalls.DRIVER);
        assertEquals(5, dr.createVolume());
        assertTrue(dr.incomplete().contains("7 calls of the window were overwritten"), dr.incomplete());
        assertEquals("incomplete", dr.agreement().status(), "5 seen of 10: short, and it says why");
        assertTrue(r.warnings().stream().anyMatch(x -> x.contains("may be short")), r.warnings().toString());
    }

    @Test
    void aDriverThatIsNotTheStorageClassesProvisionerIsNamed() throws Exception {
        DriverCounts.Read a = read(10, 0, 0, 5).withName("other.example");
        DriverCounts.Read b = read(20, 0, 0, 5).withName("other.example");
        RunReport r = run(new DriverCalls(scripted(a, b, b, b), null, null, () -> "d.example"), 10, 0);
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("is 'other.example', but the run's StorageClass is "
                + "provisioned by 'd.example'")), r.warnings().toString());
        RunReport same = run(new DriverCalls(scripted(a, b, b, b), null, null, () -> "other.example"), 10, 0);
        assertTrue(same.warnings() == null || same.warnings().stream().noneMatch(w -> w.contains("provisioned by")),
                String.valueOf(same.warnings()));
    }
}
