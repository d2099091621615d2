package dev.provbench.report;

import java.util.List;

/** A Markdown summary, e.g. for a CI job summary or a results page. */
public final class MarkdownFormat implements ReportFormat {

    private static String cell(String s) {
        return s.replace("|", "\\|");
    }

    public String render(RunReport report) {
        StringBuilder b = new StringBuilder("## provbench run ").append(report.runId()).append("\n\n");
        List<SectionKind.Row> rows = Rows.of(report);
        b.append("| section | metric | value |\n|---|---|---|\n");
        for (SectionKind.Row r : rows) {
            b.append("| ").append(r.section()).append(" | ").append(cell(r.label())).append(" | ")
                    .append(cell(r.value())).append(" |\n");
        }
        if (report.timeseries() != null && !report.timeseries().isEmpty()) {
            b.append("\n| t (s) | creates | deletes | failures | ops/s | throttled |\n|---|---|---|---|---|---|\n");
            for (RunReport.Interval i : report.timeseries()) {
                b.append(String.format(java.util.Locale.ROOT, "| %.0f | %d | %d | %d | %.2f | %d |%n", i.t(),
                        i.creates(), i.deletes(), i.failures(), i.opsPerSecond(), i.throttled()));
            }
        }
        if (report.passed() != null) {
            b.append("\n**Result: ").append(report.passed() ? "PASS" : "FAIL").append("**\n");
        }
        return b.toString();
    }
}
