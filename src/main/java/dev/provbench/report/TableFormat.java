package dev.provbench.report;

import java.util.List;

/** The human table printed by default. */
public final class TableFormat implements ReportFormat {

    public String render(RunReport report) {
        List<SectionKind.Row> rows = Rows.of(report);
        int width = rows.stream().mapToInt(r -> r.label().length()).max().orElse(10);
        StringBuilder b = new StringBuilder();
        String section = "";
        for (SectionKind.Row r : rows) {
            if (!r.section().equals(section)) {
                section = r.section();
                b.append(section.toUpperCase(java.util.Locale.ROOT)).append('\n');
            }
            b.append("  ").append(r.label()).append(" ".repeat(width - r.label().length() + 2)).append(r.value())
                    .append('\n');
        }
        if (report.timeseries() != null && !report.timeseries().isEmpty()) {
            b.append("TIMESERIES\n  t(s)    creates  deletes  failures  ops/s     throttled\n");
            for (RunReport.Interval i : report.timeseries()) {
                b.append(String.format(java.util.Locale.ROOT, "  %-7.0f %-8d %-8d %-9d %-9.2f %d%n", i.t(),
                        i.creates(), i.deletes(), i.failures(), i.opsPerSecond(), i.throttled()));
            }
        }
        if (report.passed() != null) {
            b.append(report.passed() ? "RESULT  PASS\n" : "RESULT  FAIL\n");
        }
        return b.toString();
    }
}
