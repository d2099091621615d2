package dev.provbench.load;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpLogTest {

    private static OpLog log(int workers, boolean auto) {
        return new OpLog(Instant.now(), System.nanoTime(), 1_000_000_000L, 100, workers, auto);
    }

    @Test
    void onlyOpsCompletedInsideTheWindowCount() {
        OpLog log = log(1, false);
        long t0 = System.nanoTime();
        assertEquals(OpLog.Phase.WARMUP, log.completed(OpLog.Kind.CREATE, t0, 0));
        log.failed("create:timeout");
        RunWindow w = log.openWindow(false);
        assertTrue(w.opened() && !w.closed());
        assertEquals(OpLog.Phase.WINDOW, log.completed(OpLog.Kind.CREATE, t0, 0));
        assertEquals(OpLog.Phase.WINDOW, log.completed(OpLog.Kind.DELETE, t0, 0));
        log.failed("delete:http-500");
        log.closeWindow();
        assertEquals(OpLog.Phase.DRAIN, log.completed(OpLog.Kind.DELETE, t0, 0));
        OpLog.Counts c = log.counts();
        assertEquals(1, c.creates());
        assertEquals(1, c.deletes());
        assertEquals(1, c.failures());
        assertEquals(java.util.Map.of("delete:http-500", 1L), c.failuresByCause());
        assertEquals(1, c.failuresOutsideWindow());
        assertEquals(1, c.completedInWarmup());
        assertEquals(1, c.completedAfterWindow());
        assertEquals(4, log.completions());
    }

    @Test
    void aFailureAfterTheWindowIsCountedInTheDrainRowsOfTheTimeSeries() throws Exception {
        long step = 50_000_000L;
        OpLog log = new OpLog(java.time.Instant.now(), System.nanoTime(), step, 100, 1, false);
        log.openWindowAtRunStart();
        Thread.sleep(120);
        log.closeWindow();
        Thread.sleep(120);
        log.failed("create:timeout"); // e.g. a create whose Bound never came, timing out in the drain
        dev.provbench.measure.ReportDraft.Grid g = new dev.provbench.measure.ReportDraft.Grid(log.window(), step,
                System.nanoTime());
        long inDrainRows = 0;
        long elsewhere = 0;
        for (int i = 0; i < g.rows(); i++) {
            if (g.phase(i).contains("drain")) {
                inDrainRows += log.failureSeries().get(i);
            } else {
                elsewhere += log.failureSeries().get(i);
            }
        }
        assertEquals(1, inDrainRows);
        assertEquals(0, elsewhere);
        assertEquals(1, log.counts().failuresOutsideWindow());
        assertEquals(0, log.counts().failures());
    }

    @Test
    void readingLatencyNeverResetsIt() {
        OpLog log = log(1, false);
        log.openWindow(false);
        long start = System.nanoTime() - 2_000_000_000L;
        log.completed(OpLog.Kind.CREATE, start, 500_000_000L);
        for (int i = 0; i < 2; i++) {
            assertEquals(1, log.latency(OpLog.Kind.CREATE, OpLog.Part.TOTAL).getTotalCount());
        }
        // queue + pipeline = total; the queue is what the limiter held the request
        double queue = log.latency(OpLog.Kind.CREATE, OpLog.Part.QUEUE).getMaxValue() / 1e3;
        double pipeline = log.latency(OpLog.Kind.CREATE, OpLog.Part.PIPELINE).getMaxValue() / 1e3;
        double total = log.latency(OpLog.Kind.CREATE, OpLog.Part.TOTAL).getMaxValue() / 1e3;
        assertEquals(500, queue, 1);
        assertEquals(total, queue + pipeline, total * 0.002);
    }

    @Test
    void autoWarmupEndsWithTheLastWorkersFirstCycle() {
        OpLog log = log(3, true);
        for (int i = 0; i < 3; i++) {
            log.started();
        }
        log.cycleEnded(0);
        log.cycleEnded(0); // a second cycle of the same worker does not count
        log.started();
        log.cycleEnded(1);
        assertFalse(log.window().opened());
        log.cycleEnded(2);
        assertTrue(log.window().opened());
        assertTrue(log.windowOpened().toCompletableFuture().isDone());
        assertEquals(0, log.inFlight());
    }

    @Test
    void ratesAreOverTheWindow() {
        RunWindow w = new RunWindow(Instant.EPOCH, 0, 5_000_000_000L, 15_000_000_000L, false);
        assertEquals(5, w.warmupSeconds());
        assertEquals(10, w.seconds());
        assertEquals(2.5, w.rate(25));
        assertEquals(0, RunWindow.rate(3, 7, 7));
        assertEquals(Instant.EPOCH.plusSeconds(15), w.end());
    }
}
