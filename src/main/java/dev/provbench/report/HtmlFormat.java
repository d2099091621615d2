package dev.provbench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A self-contained HTML page (no scripts, no external resources): the sections' headline parts, SVG charts of
 * ops/s and client-side throttling per interval, each section's own fragment ({@link SectionKind#html}: the
 * stages' waterfalls, CPU by component), the summary rows and the intervals. It opens from a CI artifact or the REST API alike.
 */
public final class HtmlFormat implements ReportFormat {

    public static String esc(String s) {
        return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                .replace("\"", "&quot;");
    }

    public String render(RunReport r) {
        StringBuilder b = new StringBuilder(8192);
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>provbench run ")
                .append(esc(r.runId())).append("</title>\n<style>\n")
                .append("body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:72em}\n")
                .append("table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;")
                .append("text-align:left;vertical-align:top}th{background:#f3f3f3}\n")
                .append("td.s{color:#666}.pass{color:#176f2c;font-weight:bold}.fail{color:#b00020;font-weight:bold}\n")
                .append(".warn{color:#9a3412;background:#fff7ed;border-left:3px solid #ea580c;padding:4px 8px}\n")
                .append("svg{background:#fafafa;border:1px solid #ddd}svg text{font:11px sans-serif;fill:#555}\n")
                .append("</style></head><body>\n<h1>provbench run <code>").append(esc(r.runId()))
                .append("</code></h1>\n");
        if (r.passed() != null) {
            b.append("<p class=\"").append(r.passed() ? "pass\">PASS" : "fail\">FAIL").append("</p>\n");
        }
        List<String> headline = new ArrayList<>();
        for (Section<?> s : r.sections()) {
            String h = s.headline();
            if (h != null) {
                headline.add(h);
            }
        }
        if (!headline.isEmpty()) {
            b.append("<p id=\"headline\">").append(esc(String.join(", ", headline))).append("</p>\n");
        }
        List<RunReport.Interval> ts = r.timeseries();
        if (ts != null && !ts.isEmpty()) {
            b.append("<h2>Over time</h2>\n");
            b.append(chart("ops-chart", "ops/s per interval", ts.stream().mapToDouble(RunReport.Interval::t).toArray(),
                    ts.stream().mapToDouble(RunReport.Interval::opsPerSecond).toArray(), "#1f6feb"));
            b.append(chart("throttled-chart", "requests throttled by provbench's client-side limiter, per interval",
                    ts.stream().mapToDouble(RunReport.Interval::t).toArray(),
                    ts.stream().mapToDouble(RunReport.Interval::throttled).toArray(), "#d9480f"));
        }
        for (Section<?> s : r.sections()) {
            b.append(s.html(r));
        }
        b.append("<h2>Summary</h2>\n<table id=\"summary\"><tr><th>section</th><th>metric</th><th>value</th></tr>\n");
        String last = null;
        for (SectionKind.Row row : Rows.of(r)) {
            b.append("<tr><td class=\"s\">").append(row.section().equals(last) ? "" : esc(row.section()))
                    .append("</td><td>").append(esc(row.label())).append("</td><td>").append(esc(row.value()))
                    .append("</td></tr>\n");
            last = row.section();
        }
        b.append("</table>\n");
        if (ts != null && !ts.isEmpty()) {
            b.append("<h2>Intervals</h2>\n<table id=\"intervals\"><tr><th>t (s)</th><th>phase</th><th>creates</th>")
                    .append("<th>deletes</th>")
                    .append("<th>failures</th><th>ops/s</th><th>throttled</th></tr>\n");
            for (RunReport.Interval i : ts) {
                b.append(String.format(Locale.ROOT, "<tr><td>%.0f</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td>"
                                + "<td>%.2f</td><td>%d</td></tr>%n", i.t(), esc(i.phase()), i.creates(), i.deletes(),
                        i.failures(), i.opsPerSecond(), i.throttled()));
            }
            b.append("</table>\n");
        }
        b.append("<p><small>").append(esc(r.tool().name())).append(' ').append(esc(r.tool().version()))
                .append(", schema ").append(r.schemaVersion()).append("</small></p>\n</body></html>\n");
        return b.toString();
    }

    public static final String[] PALETTE = {"#1f6feb", "#d9480f", "#2f9e44", "#9c36b5", "#e8590c", "#0c8599",
        "#5c940d", "#862e9c"};

    public static String chart(String id, String title, double[] x, double[] y, String color) {
        return chart(id, title, x, new double[][]{y}, new String[]{color});
    }

    /** A line chart as inline SVG with a zero-based y axis, one path per series. */
    public static String chart(String id, String title, double[] x, double[][] ys, String[] colors) {
        int w = 720;
        int h = 220;
        int left = 50;
        int bottom = 30;
        int top = 24;
        int right = 16;
        double maxX = 1e-9;
        double maxY = 1e-9;
        for (int i = 0; i < x.length; i++) {
            maxX = Math.max(maxX, x[i]);
            for (double[] y : ys) {
                maxY = Math.max(maxY, y[i]);
            }
        }
        maxY = maxY <= 1e-9 ? 1 : niceCeiling(maxY);
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "role=\"img\" aria-label=\"%s\">", id, w, h, w, h, esc(title)));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\">%s</text>", left, esc(title)));
        double pw = w - left - right;
        double ph = h - top - bottom;
        for (int k = 0; k <= 4; k++) {
            double v = maxY * k / 4;
            double py = top + ph - ph * k / 4;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", left, w - right, py, py, left - 6,
                    py + 4, axis(v)));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">0 s</text><text x=\"%d\" y=\"%d\" "
                + "text-anchor=\"end\">%s s</text>", left, h - 8, w - right, h - 8, Rows.num(maxX)));
        for (int k = 0; k < ys.length; k++) {
            StringBuilder pts = new StringBuilder();
            for (int i = 0; i < x.length; i++) {
                pts.append(String.format(Locale.ROOT, "%s%.1f,%.1f", i == 0 ? "M" : " L", left + pw * x[i] / maxX,
                        top + ph - ph * ys[k][i] / maxY));
            }
            b.append("<path class=\"series\" data-points=\"").append(x.length).append("\" fill=\"none\" stroke=\"")
                    .append(colors[k % colors.length]).append("\" stroke-width=\"2\" d=\"").append(pts).append("\"/>");
        }
        b.append("</svg>\n");
        return b.toString();
    }

    /** An axis label: no trailing zeros. */
    static String axis(double v) {
        return java.math.BigDecimal.valueOf(v).round(new java.math.MathContext(4)).stripTrailingZeros()
                .toPlainString();
    }

    /** 1, 2, 2.5, 5 × 10^n at or above v. */
    static double niceCeiling(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[]{1, 2, 2.5, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }
}
