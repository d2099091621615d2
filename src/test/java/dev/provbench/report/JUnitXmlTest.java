package dev.provbench.report;

import org.junit.jupiter.api.Test;
import org.xml.sax.SAXException;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JUnitXmlTest {

    @Test
    void passesFailuresAndErrorsValidateAgainstBothSchemas() throws Exception {
        String xml = JUnitXml.suite("provbench run  abc", Instant.parse("2026-12-01T13:00:00.123Z"), 12.5,
                Map.of("runId", "abc", "weird", "a<b & \"c\" \u0001"),
                List.of(JUnitXml.Case.passed("provbench.run", "max-failures", 10, "ok"),
                        JUnitXml.Case.failed("provbench.run", "min-ops-per-sec", 10, "threshold",
                                "min-ops-per-sec: actual 3.2, limit 5", "more <detail>"),
                        JUnitXml.Case.error("provbench.run", "run", 1, "run-failed", "cannot start\u0000 ]]>")),
                "table with < and ]]> inside");
        JUnitSchemas.validate(xml);
        assertTrue(xml.contains("tests=\"3\" failures=\"1\" errors=\"1\""), xml);
        assertTrue(xml.contains("timestamp=\"2026-12-01T13:00:00\""), "UTC, no zone, no fraction: " + xml);
        assertTrue(xml.contains("name=\"provbench run abc\""), "a token: " + xml);
    }

    @Test
    void theValidationCanFail() {
        // the same document without the required hostname attribute: the schemas refuse it
        String xml = JUnitXml.suite("s", Instant.EPOCH, 0, Map.of(), List.of(), "")
                .replaceFirst(" hostname=\"[^\"]*\"", "");
        assertThrows(SAXException.class, () -> JUnitSchemas.validate(xml));
    }
}
