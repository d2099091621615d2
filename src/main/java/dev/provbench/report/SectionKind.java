package dev.provbench.report;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.type.TypeFactory;

import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * A kind of report section: where its value goes in the report's JSON ({@link #path}, dot-separated; several
 * kinds may write disjoint fields of one object, e.g. {@code latency} and {@code latency.stages}), the value's
 * type (to read a report back), and how every renderer shows it: table rows, bench metrics with their units, an
 * HTML fragment, a part of the HTML headline. A measurement declares the kinds it writes as constants, configured
 * once where they are declared; {@code run.Measurements} lists them with the measurement (one registry line).
 */
public final class SectionKind<T> {
    /** A bench unit and which direction is better ({@code Unit NAME better=higher|lower}). */
    public record Unit(String name, boolean higherIsBetter) {
        public static Unit higher(String name) {
            return new Unit(name, true);
        }

        public static Unit lower(String name) {
            return new Unit(name, false);
        }
    }

    /**
     * One bench metric of a section: its value in {@code unit} (one of the kind's {@link #units}); a count is
     * written as an integer, any other value with six significant digits.
     */
    public record Metric(String unit, double value, boolean count) {
        public static Metric of(String unit, double value) {
            return new Metric(unit, value, false);
        }

        public static Metric count(String unit, long value) {
            return new Metric(unit, value, true);
        }
    }

    /** One labelled row of the table, Markdown and HTML summary, under the heading {@code section}. */
    public record Row(String section, String label, String value) {
    }

    private final String path;
    private final JavaType type;
    private Function<T, List<Row>> rows = v -> List.of();
    private Function<T, List<Metric>> metrics = v -> List.of();
    private List<Unit> units = List.of();
    private BiFunction<T, RunReport, String> html;
    private Function<T, String> headline;
    private ToLongFunction<T> iterations;
    private String scope;

    private SectionKind(String path, JavaType type) {
        if (!path.matches("[a-zA-Z][a-zA-Z0-9]*(\\.[a-zA-Z][a-zA-Z0-9]*)*")) {
            throw new IllegalArgumentException("not a section path: " + path);
        }
        this.path = path;
        this.type = type;
    }

    public static <T> SectionKind<T> of(String path, Class<T> type) {
        return new SectionKind<>(path, TypeFactory.defaultInstance().constructType(type));
    }

    public static <T> SectionKind<T> of(String path, TypeReference<T> type) {
        return new SectionKind<>(path, TypeFactory.defaultInstance().constructType(type));
    }

    public SectionKind<T> rows(Function<T, List<Row>> f) {
        rows = Objects.requireNonNull(f);
        return this;
    }

    /** Bench metrics; every metric's unit must be one of {@code declared}. */
    public SectionKind<T> metrics(List<Unit> declared, Function<T, List<Metric>> f) {
        units = List.copyOf(declared);
        metrics = Objects.requireNonNull(f);
        return this;
    }

    /** A fragment of the HTML page (a chart), placed above the summary table. */
    public SectionKind<T> html(BiFunction<T, RunReport, String> f) {
        html = f;
        return this;
    }

    /** A part of the HTML page's one-line headline. */
    public SectionKind<T> headline(Function<T, String> f) {
        headline = f;
        return this;
    }

    /**
     * What the section's figures count, where that is not only the run's own objects: {@code shared: …} for a figure
     * of a component other tenants use too (csi-provisioner's whole process, kube-apiserver's queues), or a
     * statement of which parts are the run's and which are shared. Written under the report's {@code scopes} (by
     * this kind's path) and as the section's {@code scope} row.
     */
    public SectionKind<T> scope(String statement) {
        scope = statement;
        return this;
    }

    public String scope() {
        return scope;
    }

    /** The benchmark line's iteration count (Go's b.N): the ops the window completed. */
    public SectionKind<T> iterations(ToLongFunction<T> f) {
        iterations = f;
        return this;
    }

    public String path() {
        return path;
    }

    public JavaType type() {
        return type;
    }

    public List<Unit> units() {
        return units;
    }

    List<Row> rowsOf(T value) {
        return rows.apply(value);
    }

    List<Metric> metricsOf(T value) {
        List<Metric> out = metrics.apply(value);
        for (Metric m : out) {
            if (units.stream().noneMatch(u -> u.name().equals(m.unit()))) {
                throw new IllegalStateException(path + ": metric " + m.unit() + " has no declared unit");
            }
        }
        return out;
    }

    String htmlOf(T value, RunReport r) {
        return html == null ? "" : html.apply(value, r);
    }

    String headlineOf(T value) {
        return headline == null ? null : headline.apply(value);
    }

    Long iterationsOf(T value) {
        return iterations == null ? null : iterations.applyAsLong(value);
    }

    @Override
    public String toString() {
        return "section " + path + " (" + type.toCanonical() + ")";
    }
}
