package dev.provbench.measure;

import dev.provbench.report.ReportBuilder;
import dev.provbench.report.RunReport;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --require-alone}: the threshold against {@code window.sharedWith}. */
class RequireAloneTest {
    private static final Operations.Ops OPS = new Operations.Ops(10, 10, 0, Map.of(), 1, 0.5, 0, 0, 0, 0, 0, 0, 0, 0,
            0);

    private static RunReport.Threshold alone(boolean required, SharedCluster.SharedWith shared) {
        List<RunReport.Threshold> t = ReportDraft.thresholds(new ReportBuilder.Slo(null, null, null, 0.5, required),
                OPS, null, shared);
        return t.stream().filter(x -> x.name().equals("require-alone")).findFirst().orElse(null);
    }

    private static SharedCluster.SharedWith seen(long created, long deleted, long calls) {
        return new SharedCluster.SharedWith(created + deleted + calls > 0, "sc", created, deleted, null, calls,
                List.of("the run's PV watch", "the driver's call log"), "x");
    }

    @Test
    void alonePassesAnotherTenantFailsAndNotKnowingFails() {
        assertEquals(null, alone(false, seen(3, 0, 0)), "only when asked for");
        assertTrue(alone(true, seen(0, 0, 0)).passed());
        RunReport.Threshold shared = alone(true, seen(58, 60, 130));
        assertFalse(shared.passed());
        assertEquals(248, shared.actual());
        RunReport.Threshold unknown = alone(true, new SharedCluster.SharedWith(null, "sc", null, null, null, null, null,
                "not known"));
        assertFalse(unknown.passed());
        assertEquals(-1, unknown.actual());
        assertFalse(alone(true, null).passed(), "no section: not known either");
    }
}
