package dev.provbench.measure;

import dev.provbench.evidence.DriverCounts;
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
                read(40, 7, 4, 5))), 30, 0);
        DriverCalls.Driver d = r.section(DriverCalls.DRIVER);
        assertEquals(30, d.createVolume());
        assertEquals(30, d.createVolumeCalls());
        assertEquals(Map.of("CreateVolume UNAVAILABLE", 2L), d.errors(), "6 answers, 4 of them injected");
        assertEquals(Map.of("CreateVolume UNAVAILABLE", 4L), d.injected());
        assertNull(d.resets());
        assertEquals("ok", d.agreement().status());
        assertNull(r.warnings());
    }

    @Test
    void aRestartedDriverIsSummedAndSaysReset() throws Exception {
        // 10 → 25 (+15), restart (start time 5 → 9) at 4 (+4), → 19 (+15): 34 in the window
        RunReport r = run(new DriverCalls(scripted(read(10, 0, 0, 5), read(25, 0, 0, 5), read(4, 0, 0, 9),
                read(19, 0, 0, 9))), 36, 0);
        DriverCalls.Driver d = r.section(DriverCalls.DRIVER);
        assertEquals(34, d.createVolume());
        assertEquals(1, d.resets());
        assertEquals("reset", d.agreement().status());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("driver restarted 1 time")), r.warnings()
                .toString());
    }

    @Test
    void aDriverThatRanBehindTheToolIsAMismatch() throws Exception {
        RunReport r = run(new DriverCalls(scripted(read(10, 0, 0, 5), read(20, 0, 0, 5), read(30, 0, 0, 5),
                read(40, 0, 0, 5))), 45, 2);
        assertEquals("mismatch", r.section(DriverCalls.DRIVER).agreement().status());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("disagree")), r.warnings().toString());
    }
}
