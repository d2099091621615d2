package dev.provbench.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.util.List;

/** The versioned JSON schema (see {@link RunReport}). */
public final class JsonFormat implements ReportFormat {
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** How a run's checked configuration is written: durations as Go durations ("5m", "250ms"). */
    private static final ObjectMapper CONFIG = MAPPER.copy().registerModule(new com.fasterxml.jackson.databind.module
            .SimpleModule().addSerializer(java.time.Duration.class,
                    new com.fasterxml.jackson.databind.ser.std.StdSerializer<java.time.Duration>(java.time.Duration.class) {
                        @Override
                        public void serialize(java.time.Duration d, com.fasterxml.jackson.core.JsonGenerator g,
                                com.fasterxml.jackson.databind.SerializerProvider p) throws java.io.IOException {
                            g.writeString(dev.provbench.util.Durations.format(d));
                        }
                    }));

    /** A checked configuration as the report's {@code config} object. */
    public static com.fasterxml.jackson.databind.node.ObjectNode config(Object checked) {
        return CONFIG.valueToTree(checked);
    }

    public String render(RunReport report) {
        try {
            return MAPPER.writeValueAsString(report.json()) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads a report back; {@code kinds} are the sections to look for ({@code run.Measurements.kinds()}). */
    public static RunReport parse(String json, List<SectionKind<?>> kinds) throws JsonProcessingException {
        var root = MAPPER.readTree(json);
        if (root == null || !root.isObject()) {
            throw new com.fasterxml.jackson.core.JsonParseException(null, "not a JSON object");
        }
        return RunReport.fromJson(root, kinds);
    }
}
