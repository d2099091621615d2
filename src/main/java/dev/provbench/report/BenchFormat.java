package dev.provbench.report;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Go benchmark lines, so that {@code benchstat} compares runs: configuration lines, one
 * {@code BenchmarkPVCChurn/...} line whose iteration count is the completed operations and whose metrics are
 * the sections' ({@link SectionKind#metrics}), and {@code Unit} metadata saying which direction is better.
 * Concatenate several runs' output into one file per setting.
 */
public final class BenchFormat implements ReportFormat {

    private static String v(double d) {
        return String.format(Locale.ROOT, "%.6g", d);
    }

    /** The configuration lines every provbench bench output starts with. */
    public static String header(String mode, String storageClass) {
        return "goos: linux\npkg: provbench\nmode: " + mode + "\nstorageclass: " + storageClass + "\n";
    }

    /** The {@code better=} metadata lines of every unit the kinds declare, each once, in the kinds' order. */
    public static String units(Collection<SectionKind<?>> kinds) {
        Map<String, Boolean> units = new LinkedHashMap<>();
        kinds.forEach(k -> k.units().forEach(u -> units.putIfAbsent(u.name(), u.higherIsBetter())));
        StringBuilder b = new StringBuilder();
        units.forEach((name, higher) -> b.append("Unit ").append(name).append(" better=")
                .append(higher ? "higher" : "lower").append('\n'));
        return b.toString();
    }

    /** The run's benchmark name in {@code provbench run --format bench}. */
    public static String name(RunReport r) {
        double qps = r.configNumber("qps");
        return String.format(Locale.ROOT, "BenchmarkPVCChurn/mode=%s/qps=%s/burst=%d/wait=%s-%d", r.mode(),
                qps < 0 ? "unlimited" : v(qps), (long) r.configNumber("burst"), r.configText("waitMode"),
                (long) r.configNumber("threads"));
    }

    public String render(RunReport r) {
        List<SectionKind<?>> kinds = new ArrayList<>();
        r.sections().forEach(s -> kinds.add(s.kind()));
        return header(r.mode(), r.configText("storageClass")) + line(r, name(r)) + units(kinds);
    }

    /** One benchmark line for {@code r} under {@code name}: the iteration count is the completed ops. */
    public static String line(RunReport r, String name) {
        long n = 1;
        StringBuilder metrics = new StringBuilder();
        for (Section<?> s : r.sections()) {
            Long it = s.iterations();
            if (it != null) {
                n = Math.max(1, it);
            }
            for (SectionKind.Metric m : s.metrics()) {
                metrics.append('\t').append(m.count() ? Long.toString((long) m.value()) : v(m.value())).append(' ')
                        .append(m.unit());
            }
        }
        return name + '\t' + n + metrics + '\n';
    }
}
