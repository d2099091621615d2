package dev.provbench.sweep;

import dev.provbench.report.RunReport;
import dev.provbench.run.RunLimits;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SweepResultTest {

    /**
     * A real run's report (hack/local-cluster, 60 s) that had nothing to warn about: no "warnings" in its JSON.
     * Its {@code window} was rewritten by hand for schema 3 (a steady verdict; the figures are illustrative).
     */
    private static RunReport reportWithoutWarnings() throws Exception {
        try (InputStream in = SweepResultTest.class.getResourceAsStream("report-without-warnings.json")) {
            return dev.provbench.run.Measurements.parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    @Test
    void runsWithoutWarningsAreSummarized() throws Exception {
        RunReport report = reportWithoutWarnings();
        assertNull(report.warnings(), "the fixture is a report with nothing to warn about");
        SweepRequest q = new SweepRequest();
        q.run.local = true;
        q.provisionerQps = "5,10";
        q.repeats = 2;
        q.seed = 1L;
        SweepPlan plan = SweepPlan.of(q, RunLimits.Values.DEFAULT, Map.of());
        List<SweepResult.Done> done = plan.order().stream()
                .map(p -> new SweepResult.Done(p, "r" + p.seq(), "succeeded", 0, report, 60, null)).toList();

        SweepResult r = SweepResult.of(plan, done, "succeeded", Instant.now(), Instant.now(), "test");

        assertEquals(2, r.cells().size());
        r.cells().forEach(c -> assertEquals(2, c.n(), "both runs of cell " + c.index() + " count"));
        assertTrue(r.warnings().stream().noneMatch(w -> w.contains(" of 2 run(s): ")), r.warnings().toString());
    }
}
