package dev.provbench.sweep;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.provbench.report.JsonFormat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The sweep's result as people read it: {@code sweep.json}, the table on stdout, {@code sweep.md} and the
 * self-contained {@code sweep.html} (inline SVG, no script). Every figure comes from {@link SweepResult}.
 */
public final class SweepFormats {
    private SweepFormats() {
    }

    /** The columns: unit in sweep.bench → heading. */
    static final Map<String, String> COLUMNS = new LinkedHashMap<>();

    static {
        COLUMNS.put("ops/s", "ops/s");
        COLUMNS.put("cycles/s", "cycles/s");
        COLUMNS.put("create-pipeline-p50-ms", "create p50 ms");
        COLUMNS.put("create-pipeline-p99-ms", "create p99 ms");
        COLUMNS.put("delete-pipeline-p50-ms", "delete p50 ms");
        COLUMNS.put("delete-pipeline-p99-ms", "delete p99 ms");
        COLUMNS.put("req/op", "req/op");
        COLUMNS.put("throttled", "tool throttled");
        COLUMNS.put("provisioner-throttling-lines", "provisioner throttling lines");
        COLUMNS.put("failures", "failures");
    }

    public static String json(SweepResult r) {
        try {
            return JsonFormat.MAPPER.writeValueAsString(r) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String num(double v) {
        if (Double.isInfinite(v)) {
            return v > 0 ? "∞" : "-∞";
        }
        double a = Math.abs(v);
        return a >= 1000 || a == Math.rint(a) && a < 1e6 ? String.format(Locale.ROOT, "%.0f", v)
                : a >= 100 ? String.format(Locale.ROOT, "%.1f", v)
                : a >= 1 ? String.format(Locale.ROOT, "%.3g", v) : String.format(Locale.ROOT, "%.3g", v);
    }

    /** "median [low, high]", or "median (n=3: no CI)" when the interval is infinite. */
    static String stat(SweepResult.Stat s) {
        if (s == null) {
            return "-";
        }
        if (!s.bounded()) {
            return num(s.median()) + " (" + num(s.min()) + "–" + num(s.max()) + ")";
        }
        return num(s.median()) + " [" + num(s.ciLow()) + ", " + num(s.ciHigh()) + "]";
    }

    private static List<String> headings(SweepResult r) {
        List<String> h = new ArrayList<>(List.of("cell"));
        h.addAll(r.varying().isEmpty() ? List.of("settings") : r.varying());
        h.add("n");
        for (String u : COLUMNS.keySet()) {
            if (r.cells().stream().anyMatch(c -> c.metrics().containsKey(u))) {
                h.add(COLUMNS.get(u));
            }
        }
        return h;
    }

    private static List<List<String>> rows(SweepResult r) {
        List<List<String>> out = new ArrayList<>();
        for (SweepResult.CellResult c : r.cells()) {
            List<String> row = new ArrayList<>();
            row.add(Integer.toString(c.index()));
            if (r.varying().isEmpty()) {
                List<String> kv = new ArrayList<>();
                c.settings().forEach((k, v) -> kv.add(k + "=" + v));
                row.add(String.join(" ", kv));
            } else {
                r.varying().forEach(k -> row.add(c.settings().get(k)));
            }
            row.add(c.n() + (c.failedRuns() > 0 ? " (+" + c.failedRuns() + " failed)" : ""));
            for (String u : COLUMNS.keySet()) {
                if (r.cells().stream().anyMatch(x -> x.metrics().containsKey(u))) {
                    row.add(stat(c.metrics().get(u)));
                }
            }
            out.add(row);
        }
        return out;
    }

    private static String legend(SweepResult r) {
        return String.format(Locale.ROOT, "Each figure: median [%.0f %% confidence interval of the median] over the "
                + "cell's runs; where the runs are too few for a finite %.0f %% interval (fewer than 6), median "
                + "(min–max) — a range that holds the median with confidence 1 − 2·½ⁿ (%.2f %% for %d runs).",
                r.confidence() * 100, r.confidence() * 100, (1 - 2 * Math.pow(0.5, r.repeats())) * 100, r.repeats());
    }

    public static String table(SweepResult r) {
        List<String> h = headings(r);
        List<List<String>> rows = rows(r);
        int[] w = new int[h.size()];
        for (int i = 0; i < h.size(); i++) {
            w[i] = h.get(i).length();
            for (List<String> row : rows) {
                w[i] = Math.max(w[i], row.get(i).length());
            }
        }
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "provbench sweep: %s, %d cells × %d repeats, seed %d, provisioner "
                + "control %s%n", r.state(), r.cells().size(), r.repeats(), r.seed(), r.control()));
        line(b, h, w);
        for (List<String> row : rows) {
            line(b, row, w);
        }
        b.append(legend(r)).append('\n');
        for (SweepResult.Recommendation rec : r.recommendations()) {
            b.append(rec.tool()).append(": ").append(rec.text()).append('\n');
        }
        for (String warning : r.warnings()) {
            b.append("warning: ").append(warning).append('\n');
        }
        return b.toString();
    }

    private static void line(StringBuilder b, List<String> cells, int[] w) {
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            b.append(i == 0 ? "" : "  ").append(i < 2 ? pad(c, w[i]) : lpad(c, w[i]));
        }
        b.append('\n');
    }

    private static String pad(String s, int w) {
        return s + " ".repeat(Math.max(0, w - s.codePointCount(0, s.length())));
    }

    private static String lpad(String s, int w) {
        return " ".repeat(Math.max(0, w - s.codePointCount(0, s.length()))) + s;
    }

    public static String markdown(SweepResult r, String command) {
        StringBuilder b = new StringBuilder("# provbench sweep\n\n");
        if (command != null) {
            b.append("```\n").append(command).append("\n```\n\n");
        }
        b.append(String.format(Locale.ROOT, "%s; %d cells × %d repeats in a random order (seed %d); provisioner "
                        + "control: %s; %s.%n%n", r.state(), r.cells().size(), r.repeats(), r.seed(), r.control(),
                legend(r)));
        List<String> h = headings(r);
        b.append("| ").append(String.join(" | ", h)).append(" |\n");
        b.append("|").append("---|".repeat(h.size())).append('\n');
        for (List<String> row : rows(r)) {
            b.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        if (!r.recommendations().isEmpty()) {
            b.append("\n## Recommendation\n\n");
            for (SweepResult.Recommendation rec : r.recommendations()) {
                b.append("- ").append(rec.tool()).append(": `").append(rec.text()).append("`\n");
            }
        }
        if (!r.warnings().isEmpty()) {
            b.append("\n## Warnings\n\n");
            r.warnings().forEach(w -> b.append("- ").append(w).append('\n'));
        }
        return b.toString();
    }

    // ---- HTML ----

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** One chart: a unit's median per cell with its CI (solid) or min–max (dashed), a line per tool setting. */
    static String chart(SweepResult r, String unit, String title) {
        Map<String, List<SweepResult.CellResult>> groups = new LinkedHashMap<>();
        boolean byProvisioner = r.varying().contains("provisioner-qps") || r.varying().contains("provisioner-burst");
        for (SweepResult.CellResult c : r.cells()) {
            String key = byProvisioner ? "qps=" + c.settings().get("qps") + " burst=" + c.settings().get("burst")
                    + " threads=" + c.settings().get("threads") : "cells";
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(c);
        }
        List<String> xs = new ArrayList<>();
        for (SweepResult.CellResult c : r.cells()) {
            String x = byProvisioner ? c.settings().get("provisioner-qps") + "/" + c.settings().get("provisioner-burst")
                    : "cell " + c.index();
            if (!xs.contains(x)) {
                xs.add(x);
            }
        }
        double max = 0;
        for (SweepResult.CellResult c : r.cells()) {
            SweepResult.Stat s = c.metrics().get(unit);
            if (s != null) {
                max = Math.max(max, s.bounded() ? s.ciHigh() : s.max());
            }
        }
        if (max <= 0) {
            max = 1;
        }
        int w = 640;
        int h = 300;
        int left = 60;
        int bottom = 40;
        int plotW = w - left - 20;
        int plotH = h - bottom - 30;
        String[] colors = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
        StringBuilder b = new StringBuilder();
        b.append("<figure><figcaption>").append(esc(title)).append("</figcaption>");
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "role=\"img\" aria-label=\"%s\">", w, h, esc(title)));
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>", left,
                30 + plotH, left + plotW, 30 + plotH));
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"30\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>", left,
                left, 30 + plotH));
        for (int i = 0; i <= 4; i++) {
            double v = max * i / 4;
            double y = 30 + plotH - plotH * i / 4.0;
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s"
                    + "</text><line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>", left - 4, y + 4,
                    num(v), left, y, left + plotW, y));
        }
        for (int i = 0; i < xs.size(); i++) {
            double x = left + plotW * (i + 0.5) / xs.size();
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s"
                    + "</text>", x, 30 + plotH + 16, esc(xs.get(i))));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s"
                + "</text>", left + plotW / 2, h - 4, byProvisioner ? "csi-provisioner --kube-api-qps/--kube-api-burst"
                : "cell"));
        int g = 0;
        for (Map.Entry<String, List<SweepResult.CellResult>> e : groups.entrySet()) {
            String color = colors[g % colors.length];
            double offset = (g - (groups.size() - 1) / 2.0) * 6;
            StringBuilder path = new StringBuilder();
            for (SweepResult.CellResult c : e.getValue()) {
                SweepResult.Stat s = c.metrics().get(unit);
                if (s == null) {
                    continue;
                }
                String xl = byProvisioner ? c.settings().get("provisioner-qps") + "/" + c.settings().get("provisioner-burst")
                        : "cell " + c.index();
                double x = left + plotW * (xs.indexOf(xl) + 0.5) / xs.size() + offset;
                boolean finite = s.bounded();
                double lo = finite ? s.ciLow() : s.min();
                double hi = finite ? s.ciHigh() : s.max();
                double y = 30 + plotH - plotH * s.median() / max;
                b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                                + "stroke-width=\"2\"%s/>", x, 30 + plotH - plotH * lo / max, x,
                        30 + plotH - plotH * hi / max, color, finite ? "" : " stroke-dasharray=\"3,3\""));
                b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>%s: %s "
                        + "%s</title></circle>", x, y, color, esc(c.name()), esc(stat(s)), esc(unit)));
                path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
            }
            b.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"").append(color)
                    .append("\" stroke-opacity=\"0.5\"/>");
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">%s</text>",
                    left + 8, 14 + 12 * g, color, esc(e.getKey())));
            g++;
        }
        b.append("</svg></figure>\n");
        return b.toString();
    }

    public static String html(SweepResult r, String command) {
        StringBuilder b = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>provbench sweep</title><style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
                + "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;"
                + "text-align:right}td:first-child{text-align:left}figure{display:inline-block;margin:1em}"
                + "figcaption{font-weight:bold}</style></head><body>\n<h1>provbench sweep</h1>\n");
        if (command != null) {
            b.append("<pre>").append(esc(command)).append("</pre>\n");
        }
        b.append("<p>").append(esc(String.format(Locale.ROOT, "%s; %d cells × %d repeats in a random order (seed %d);"
                + " provisioner control: %s. ", r.state(), r.cells().size(), r.repeats(), r.seed(), r.control())))
                .append(esc(legend(r))).append(" Bars: the interval (solid) or min–max (dashed).</p>\n");
        b.append(chart(r, "ops/s", "ops/s"));
        b.append(chart(r, "provisioner-throttling-lines", "csi-provisioner throttling lines per run"));
        b.append(chart(r, "throttled", "provbench's throttled requests per run"));
        b.append(chart(r, "create-pipeline-p99-ms", "create p99 (ms)"));
        b.append(chart(r, "delete-pipeline-p99-ms", "delete p99 (ms)"));
        if (!r.recommendations().isEmpty()) {
            b.append("<h2>Recommendation</h2><ul>");
            r.recommendations().forEach(rec -> b.append("<li>").append(esc(rec.tool())).append(": <code>")
                    .append(esc(rec.text())).append("</code></li>"));
            b.append("</ul>\n");
        }
        List<String> h = headings(r);
        b.append("<h2>Cells</h2><table><tr>");
        h.forEach(x -> b.append("<th>").append(esc(x)).append("</th>"));
        b.append("</tr>\n");
        for (List<String> row : rows(r)) {
            b.append("<tr>");
            row.forEach(x -> b.append("<td>").append(esc(x)).append("</td>"));
            b.append("</tr>\n");
        }
        b.append("</table>\n");
        if (!r.warnings().isEmpty()) {
            b.append("<h2>Warnings</h2><ul>");
            r.warnings().forEach(w -> b.append("<li>").append(esc(w)).append("</li>"));
            b.append("</ul>\n");
        }
        return b.append("</body></html>\n").toString();
    }
}
