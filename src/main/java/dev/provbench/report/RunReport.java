package dev.provbench.report;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The result of one load run: a header (schema version, tool, mode, run id, verdict, the checked configuration),
 * the measurements' {@link Section}s in registry order, and the run's own parts (cleanup, thresholds, warnings,
 * time series). Its JSON form is versioned by {@link #schemaVersion}: names are only ever added within a version.
 * Each section is written at its kind's path; latencies are in milliseconds, rates per second, and every count
 * covers the measurement window unless its name says otherwise. Each figure's definition, and the class that
 * computes it, is in the table in docs/load.md.
 */
public final class RunReport {

    public static final int SCHEMA_VERSION = 5;

    public record Tool(String name, String version) {
    }

    public record Latency(long count, double mean, double p50, double p90, double p99, double p999, double max) {
    }

    /**
     * A client's requests.
     *
     * @param perOp                  requests in the window / ops (creates + deletes) in the window
     * @param totalIncludingCleanup  every attempt from the client's creation to the end of cleanup
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Requests(long total, Map<String, Long> byVerb, Map<String, Long> byVerbResource,
                           Map<String, Long> byCode, Double perOp, Long totalIncludingCleanup) {
    }

    /**
     * What cleanup did ({@code load.RunCleanup}): claims it deleted, and what is still there by a final LIST —
     * empty only when the cluster said nothing of the run is left.
     *
     * @param command the command that removes what is left (null when nothing is)
     */
    public record Cleanup(long deletedClaims, List<Leftover> leftover, Double seconds, String command) {
    }

    /** An object of the run still present after cleanup (or whose state is unknown), and why. */
    public record Leftover(String kind, String name, String namespace, String phase, String reason) {
        @Override
        public String toString() {
            return kind + "/" + (namespace == null ? "" : namespace + "/") + name
                    + (phase == null ? "" : " (" + phase + ")") + ": " + reason;
        }
    }

    public record Threshold(String name, double limit, double actual, boolean passed) {
    }

    /**
     * One interval of the time series: a grid of {@code config.interval} from the run start, in every phase.
     *
     * @param t        seconds from the run start at the interval's end
     * @param phase    warmup, window, drain, or a mix such as warmup+window for an interval the window edge cuts
     * @param cpuCores CPU seconds per second of each component in this interval
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Interval(double t, String phase, long creates, long deletes, long failures, double opsPerSecond,
                           long throttled, Map<String, Double> cpuCores) {
    }

    private final int schemaVersion;
    private final Tool tool;
    private final String mode;
    private final String runId;
    private final Boolean passed;
    private final ObjectNode config;
    private final List<Section<?>> sections;
    private final Cleanup cleanup;
    private final List<Threshold> thresholds;
    private final List<String> warnings;
    private final List<Interval> timeseries;

    private RunReport(Builder b) {
        schemaVersion = b.schemaVersion;
        tool = b.tool;
        mode = b.mode;
        runId = b.runId;
        passed = b.passed;
        config = b.config;
        sections = List.copyOf(b.sections);
        cleanup = b.cleanup;
        thresholds = b.thresholds == null ? null : List.copyOf(b.thresholds);
        warnings = b.warnings == null || b.warnings.isEmpty() ? null : List.copyOf(b.warnings);
        timeseries = b.timeseries == null ? null : List.copyOf(b.timeseries);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds a report; every part is named, none positional. */
    public static final class Builder {
        private int schemaVersion = SCHEMA_VERSION;
        private Tool tool;
        private String mode;
        private String runId;
        private Boolean passed;
        private ObjectNode config;
        private final List<Section<?>> sections = new ArrayList<>();
        private Cleanup cleanup;
        private List<Threshold> thresholds;
        private List<String> warnings;
        private List<Interval> timeseries;

        public Builder schemaVersion(int v) {
            schemaVersion = v;
            return this;
        }

        public Builder tool(Tool t) {
            tool = t;
            return this;
        }

        public Builder mode(String m) {
            mode = m;
            return this;
        }

        public Builder runId(String id) {
            runId = id;
            return this;
        }

        public Builder passed(Boolean p) {
            passed = p;
            return this;
        }

        /** The checked run configuration, serialized (an object, or null). */
        public Builder config(JsonNode c) {
            config = c == null || c.isNull() ? null : (ObjectNode) c.deepCopy();
            return this;
        }

        public Builder sections(Collection<Section<?>> s) {
            sections.addAll(s);
            return this;
        }

        public <T> Builder section(SectionKind<T> kind, T value) {
            if (value != null) {
                sections.add(new Section<>(kind, value));
            }
            return this;
        }

        public Builder cleanup(Cleanup c) {
            cleanup = c;
            return this;
        }

        public Builder thresholds(List<Threshold> t) {
            thresholds = t;
            return this;
        }

        public Builder warnings(List<String> w) {
            warnings = w;
            return this;
        }

        public Builder timeseries(List<Interval> t) {
            timeseries = t;
            return this;
        }

        public RunReport build() {
            return new RunReport(this);
        }
    }

    public int schemaVersion() {
        return schemaVersion;
    }

    public Tool tool() {
        return tool;
    }

    public String mode() {
        return mode;
    }

    public String runId() {
        return runId;
    }

    public Boolean passed() {
        return passed;
    }

    /** The checked run configuration as JSON (its fields are {@code load.RunConfig}'s), or null. */
    public ObjectNode config() {
        return config == null ? null : config.deepCopy();
    }

    /** The configuration's text field {@code name}, or null. */
    public String configText(String name) {
        JsonNode n = config == null ? null : config.get(name);
        return n == null || n.isNull() ? null : n.asText();
    }

    /** The configuration's number field {@code name}, or NaN. */
    public double configNumber(String name) {
        JsonNode n = config == null ? null : config.get(name);
        return n == null || !n.isNumber() ? Double.NaN : n.asDouble();
    }

    /** The sections, in the order the measurements put them. */
    public List<Section<?>> sections() {
        return sections;
    }

    /** The value of the first section of {@code kind}, or null when the report has none. */
    public <T> T section(SectionKind<T> kind) {
        for (Section<?> s : sections) {
            if (s.kind() == kind) {
                @SuppressWarnings("unchecked") T v = (T) s.value();
                return v;
            }
        }
        return null;
    }

    public Cleanup cleanup() {
        return cleanup;
    }

    public List<Threshold> thresholds() {
        return thresholds;
    }

    public List<String> warnings() {
        return warnings;
    }

    public List<Interval> timeseries() {
        return timeseries;
    }

    /**
     * The JSON form: the header, then each section merged in at its path (two sections writing one field is a
     * bug and throws), then cleanup, thresholds, warnings and the time series. Null parts are left out.
     */
    @JsonValue
    public ObjectNode json() {
        var m = JsonFormat.MAPPER;
        ObjectNode root = m.createObjectNode();
        root.put("schemaVersion", schemaVersion);
        put(root, "tool", tool);
        put(root, "mode", mode);
        put(root, "runId", runId);
        put(root, "passed", passed);
        if (config != null) {
            root.set("config", config.deepCopy());
        }
        ObjectNode scopes = m.createObjectNode();
        for (Section<?> s : sections) {
            merge(root, s.kind().path(), m.valueToTree(s.value()));
            if (s.kind().scope() != null) {
                scopes.put(s.kind().path(), s.kind().scope());
            }
        }
        if (!scopes.isEmpty()) {
            root.set("scopes", scopes);
        }
        put(root, "cleanup", cleanup);
        put(root, "thresholds", thresholds);
        put(root, "warnings", warnings);
        put(root, "timeseries", timeseries);
        return root;
    }

    private static void put(ObjectNode root, String name, Object v) {
        if (v != null) {
            root.set(name, JsonFormat.MAPPER.valueToTree(v));
        }
    }

    private static void merge(ObjectNode root, String path, JsonNode value) {
        String[] parts = path.split("\\.");
        ObjectNode at = root;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode next = at.get(parts[i]);
            if (next == null) {
                next = at.putObject(parts[i]);
            } else if (!next.isObject()) {
                throw new IllegalStateException(path + ": " + parts[i] + " is not an object");
            }
            at = (ObjectNode) next;
        }
        String last = parts[parts.length - 1];
        JsonNode old = at.get(last);
        if (old == null) {
            at.set(last, value);
            return;
        }
        if (!old.isObject() || !value.isObject()) {
            throw new IllegalStateException("two sections write " + path);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (old.has(e.getKey())) {
                throw new IllegalStateException("two sections write " + path + "." + e.getKey());
            }
            ((ObjectNode) old).set(e.getKey(), e.getValue());
        }
    }

    /**
     * Reads a report's JSON back. Each of {@code kinds} whose path holds at least one of its value's fields (or,
     * for a map, any entry) becomes a section; a kind listed twice is read once. Unknown names are ignored.
     */
    public static RunReport fromJson(JsonNode root, List<SectionKind<?>> kinds) throws JsonProcessingException {
        var m = JsonFormat.MAPPER;
        Builder b = builder().schemaVersion(root.path("schemaVersion").asInt())
                .tool(read(root.get("tool"), Tool.class)).mode(text(root.get("mode")))
                .runId(text(root.get("runId")));
        JsonNode p = root.get("passed");
        b.passed(p == null || p.isNull() ? null : p.asBoolean());
        b.config(root.get("config") != null && root.get("config").isObject() ? root.get("config") : null);
        Map<SectionKind<?>, Boolean> seen = new IdentityHashMap<>();
        for (SectionKind<?> k : kinds) {
            if (seen.put(k, true) != null) {
                continue;
            }
            JsonNode n = root;
            for (String part : k.path().split("\\.")) {
                n = n == null ? null : n.get(part);
            }
            if (n == null || n.isNull() || !present(n, k)) {
                continue;
            }
            add(b, k, n);
        }
        b.cleanup(read(root.get("cleanup"), Cleanup.class));
        b.thresholds(root.has("thresholds") ? m.convertValue(root.get("thresholds"),
                m.getTypeFactory().constructCollectionType(List.class, Threshold.class)) : null);
        b.warnings(root.has("warnings") ? m.convertValue(root.get("warnings"),
                m.getTypeFactory().constructCollectionType(List.class, String.class)) : null);
        b.timeseries(root.has("timeseries") ? m.convertValue(root.get("timeseries"),
                m.getTypeFactory().constructCollectionType(List.class, Interval.class)) : null);
        return b.build();
    }

    private static <T> void add(Builder b, SectionKind<T> k, JsonNode n) throws JsonProcessingException {
        T v = JsonFormat.MAPPER.treeToValue(n, k.type());
        b.section(k, v);
    }

    /** Does {@code n} hold anything of {@code k}'s value: a map's entry, a record's field? */
    private static boolean present(JsonNode n, SectionKind<?> k) {
        Class<?> raw = k.type().getRawClass();
        if (!raw.isRecord()) {
            return n.size() > 0 || !n.isContainerNode();
        }
        for (var c : raw.getRecordComponents()) {
            var named = c.getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
            if (n.has(named == null || named.value().isEmpty() ? c.getName() : named.value())) {
                return true;
            }
        }
        return false;
    }

    private static <T> T read(JsonNode n, Class<T> type) throws JsonProcessingException {
        return n == null || n.isNull() ? null : JsonFormat.MAPPER.treeToValue(n, type);
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() ? null : n.asText();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RunReport r && schemaVersion == r.schemaVersion && Objects.equals(tool, r.tool)
                && Objects.equals(mode, r.mode) && Objects.equals(runId, r.runId) && Objects.equals(passed, r.passed)
                && Objects.equals(config, r.config) && sections.equals(r.sections)
                && Objects.equals(cleanup, r.cleanup) && Objects.equals(thresholds, r.thresholds)
                && Objects.equals(warnings, r.warnings) && Objects.equals(timeseries, r.timeseries);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schemaVersion, tool, mode, runId, passed, config, sections, cleanup, thresholds,
                warnings, timeseries);
    }

    @Override
    public String toString() {
        return "RunReport " + runId + " " + sections.stream().map(s -> s.kind().path()).toList();
    }
}
