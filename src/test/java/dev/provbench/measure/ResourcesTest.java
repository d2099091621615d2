package dev.provbench.measure;

import dev.provbench.evidence.ProcessUsage;
import dev.provbench.load.RunWindow;
import dev.provbench.report.RunReport;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResourcesTest {

    /** Hands out scripted samples, one per read. */
    private static ProcessUsage scripted(ProcessUsage.Sample... samples) {
        Deque<ProcessUsage.Sample> left = new ArrayDeque<>(java.util.List.of(samples));
        return new ProcessUsage() {
            public Sample read() {
                return left.poll();
            }

            public String source() {
                return "scripted";
            }
        };
    }

    @Test
    void aRestartInTheWindowIsSummedAndCounted() throws Exception {
        Resources r = new Resources().add("driver", scripted(
                new ProcessUsage.Sample(10, 50_000_000, 1), // idle from
                new ProcessUsage.Sample(10, 60_000_000, 1), // idle to: idle CPU 0
                new ProcessUsage.Sample(12, 70_000_000, 1), // window start
                new ProcessUsage.Sample(15, 90_000_000, 1), // +3 s
                new ProcessUsage.Sample(2, 40_000_000, 2),  // restarted: counts from 0, +2 s
                new ProcessUsage.Sample(4, 45_000_000, 2)), // window end: +2 s → 7 s in all
                null);
        r.idle();
        long start = System.nanoTime();
        r.windowStart(null);
        r.sample(System.nanoTime());
        r.sample(System.nanoTime());
        r.windowEnd(null);
        long end = System.nanoTime();
        RunWindow w = new RunWindow(Instant.now(), start, start, end, false);
        ReportDraft d = new ReportDraft(new ReportDraft.Grid(w, Math.max(1, end - start), end));
        RunReport.Latency none = new RunReport.Latency(0, 0, 0, 0, 0, 0, 0);
        Operations.OpLatency l = new Operations.OpLatency(none, none, none);
        d.put(Operations.OPS, new Operations.Ops(5, 2, 0, Map.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        d.put(Operations.LATENCY, new Operations.Latencies(l, l));
        r.report(d);
        Resources.Component x = d.build("t", "local", "id", null, null, null).section(Resources.RESOURCES).get("driver");
        assertEquals(0.0, x.cpuCoresIdle());
        assertEquals(1, x.resets());
        assertEquals(1.0, x.cpuSecondsPerOp(), 1e-9, "7 CPU seconds over 7 window ops");
        assertEquals(90_000_000L, x.rssBytesPeak());
        assertEquals(60_000_000L, x.rssBytesIdle());
        assertTrue(d.build("t", "local", "id", null, null, null).warnings().stream()
                .anyMatch(s -> s.contains("restarted")));
    }

    @Test
    void anUnreadableSourceIsAWarningNotAFigure() throws Exception {
        Resources r = new Resources().add("etcd", scripted(), null);
        r.idle();
        long now = System.nanoTime();
        RunWindow w = new RunWindow(Instant.now(), now, now, now + 1, false);
        ReportDraft d = new ReportDraft(new ReportDraft.Grid(w, 1_000_000_000L, now + 1));
        r.report(d);
        RunReport report = d.build("t", "cluster", "id", null, null, null);
        assertNull(report.section(Resources.RESOURCES));
        assertTrue(report.warnings().get(0).contains("etcd"));
    }
}
