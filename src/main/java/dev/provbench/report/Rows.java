package dev.provbench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report as labelled rows, shared by the table, Markdown and HTML formats: the run's own rows, then each
 * section's (grouped under their headings in the order the headings first appear), then cleanup, thresholds and
 * warnings. The helpers format figures the same way in every section.
 */
public final class Rows {
    private Rows() {
    }

    public static String num(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return String.format(Locale.ROOT, "%,d", (long) v);
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%,.1f" : "%.3f", v);
    }

    public static String lat(RunReport.Latency l) {
        if (l == null || l.count() == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "p50 %s  p90 %s  p99 %s  p99.9 %s  max %s ms (n=%d)", num(l.p50()),
                num(l.p90()), num(l.p99()), num(l.p999()), num(l.max()), l.count());
    }

    public static String map2(Map<String, String> m) {
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(": ").append(v));
        return b.toString();
    }

    public static String map(Map<String, Long> m) {
        if (m == null || m.isEmpty()) {
            return "-";
        }
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append('=').append(v));
        return b.toString();
    }

    public static String bytes(Long b) {
        return b == null ? "-" : String.format(Locale.ROOT, "%.0f MiB", b / 1048576.0);
    }

    public static SectionKind.Row row(String section, String label, String value) {
        return new SectionKind.Row(section, label, value);
    }

    private static String qps(double qps, Object burst) {
        return qps < 0 ? "unlimited" : num(qps) + "/" + burst;
    }

    static List<SectionKind.Row> of(RunReport r) {
        List<SectionKind.Row> rows = new ArrayList<>();
        rows.add(row("run", "id", r.runId() + " (" + r.mode() + ")"));
        rows.add(row("run", "tool", r.tool().name() + " " + r.tool().version()));
        if (r.config() != null) {
            double cycles = r.configNumber("cycles");
            String shape = "bulk".equals(r.configText("mode")) ? "bulk of " + num(r.configNumber("count"))
                    + " claims, " + num(r.configNumber("threads")) + " requests in flight at most, op timeout "
                    + r.configText("opTimeout") : num(r.configNumber("threads")) + " workers, " + (cycles > 0
                    ? num(cycles) + " cycles" : r.configText("duration")) + " window after warm-up "
                    + r.configText("warmup");
            rows.add(row("run", "config", shape + ", storage class " + r.configText("storageClass") + ", "
                    + r.configText("size") + " " + r.configText("accessMode") + ", wait " + r.configText("waitMode")
                    + ", client qps/burst " + qps(r.configNumber("qps"), r.configText("burst"))));
            var standIn = r.config().get("standIn");
            if (standIn != null && standIn.isObject()) {
                rows.add(row("run", "stand-in provisioner", "qps/burst " + qps(standIn.path("qps").asDouble(),
                        standIn.path("burst").asText()) + ", PV reads by " + standIn.path("reads").asText()));
            }
        }
        Map<String, List<SectionKind.Row>> bySection = new LinkedHashMap<>();
        for (Section<?> s : r.sections()) {
            List<SectionKind.Row> own = s.rows();
            for (SectionKind.Row x : own) {
                bySection.computeIfAbsent(x.section(), k -> new ArrayList<>()).add(x);
            }
            String scope = s.kind().scope();
            if (scope != null && !own.isEmpty()) {
                List<SectionKind.Row> group = bySection.get(own.get(0).section());
                SectionKind.Row row = row(own.get(0).section(), "  scope", scope);
                if (!group.contains(row)) {
                    group.add(row);
                }
            }
        }
        bySection.values().forEach(rows::addAll);
        RunReport.Cleanup c = r.cleanup();
        if (c != null) {
            rows.add(row("cleanup", "claims deleted / left over", c.deletedClaims() + " / "
                    + (c.leftover().isEmpty() ? "none" : c.leftover().size() + " object(s)")
                    + (c.seconds() == null ? "" : " (" + num(c.seconds()) + " s)")));
            for (RunReport.Leftover left : c.leftover()) {
                rows.add(row("cleanup", "left over", left.toString()));
            }
            if (c.command() != null) {
                rows.add(row("cleanup", "remove with", c.command()));
            }
        }
        if (r.thresholds() != null) {
            for (RunReport.Threshold th : r.thresholds()) {
                rows.add(row("thresholds", th.name(), (th.passed() ? "PASS " : "FAIL ") + num(th.actual())
                        + " (limit " + num(th.limit()) + ")"));
            }
        }
        if (r.warnings() != null) {
            r.warnings().forEach(x -> rows.add(row("warnings", "!", x)));
        }
        return rows;
    }
}
