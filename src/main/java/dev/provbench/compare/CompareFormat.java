package dev.provbench.compare;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.provbench.report.JsonFormat;

import java.util.Locale;

/** {@link CompareResult} as a table (benchstat's layout), markdown, or JSON. */
public final class CompareFormat {
    private CompareFormat() {
    }

    static String num(double v) {
        if (Double.isInfinite(v)) {
            return v > 0 ? "+∞" : "-∞";
        }
        return String.format(Locale.ROOT, "%.4g", v);
    }

    /** "median [lo, hi]" or "median ±∞" when the interval is unbounded. */
    public static String side(CompareResult.Side s) {
        return num(s.median()) + (s.ciLow() == null || s.ciHigh() == null ? " ±∞"
                : " [" + num(s.ciLow()) + ", " + num(s.ciHigh()) + "]");
    }

    static String delta(CompareResult.Row r) {
        if (!r.significant()) {
            return "~";
        }
        return r.deltaPercent() == null ? "?" : String.format(Locale.ROOT, "%+.2f%%", r.deltaPercent());
    }

    static String[] cells(CompareResult.Row r) {
        return new String[] {r.cell(), r.unit() + (r.better() == null ? "" : " (" + r.better() + " is better)"),
            side(r.old()) + " n=" + r.old().n(), side(r.now()) + " n=" + r.now().n(), delta(r),
            String.format(Locale.ROOT, "p=%.3f", r.p()), r.regression() ? "REGRESSION" : ""};
    }

    static final String[] HEAD = {"cell", "unit", "old median [CI]", "new median [CI]", "Δ", "p", ""};

    public static String table(CompareResult c) {
        java.util.List<String[]> all = new java.util.ArrayList<>();
        all.add(HEAD);
        c.rows().forEach(r -> all.add(cells(r)));
        int[] w = new int[HEAD.length];
        for (String[] row : all) {
            for (int i = 0; i < row.length; i++) {
                w[i] = Math.max(w[i], row[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] row : all) {
            for (int i = 0; i < row.length; i++) {
                b.append(String.format(Locale.ROOT, "%-" + Math.max(1, w[i]) + "s", row[i])).append(i + 1 < row.length ? "  " : "");
            }
            b.append('\n');
        }
        return b.toString().replaceAll(" +\n", "\n") + footer(c);
    }

    public static String markdown(CompareResult c) {
        StringBuilder b = new StringBuilder("| " + String.join(" | ", HEAD) + " |\n");
        b.append("|---".repeat(HEAD.length)).append("|\n");
        c.rows().forEach(r -> b.append("| ").append(String.join(" | ", cells(r))).append(" |\n"));
        return b + "\n" + footer(c);
    }

    private static String footer(CompareResult c) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "medians with %.0f %% confidence intervals (order statistics); "
                + "Mann-Whitney U, two-sided; ~: not significant at alpha %s%n", c.confidence() * 100, c.alpha()));
        java.util.Set<String> notes = new java.util.LinkedHashSet<>();
        c.rows().forEach(r -> {
            if (r.note() != null) {
                notes.add(r.note());
            }
            if (r.old().note() != null) {
                notes.add(r.old().note());
            }
            if (r.now().note() != null) {
                notes.add(r.now().note());
            }
        });
        notes.forEach(n -> b.append("note: ").append(n).append('\n'));
        if (!c.onlyOld().isEmpty()) {
            b.append("only in OLD: ").append(String.join(", ", c.onlyOld())).append('\n');
        }
        if (!c.onlyNew().isEmpty()) {
            b.append("only in NEW: ").append(String.join(", ", c.onlyNew())).append('\n');
        }
        if (c.failOnRegressionPercent() != null) {
            long n = c.rows().stream().filter(CompareResult.Row::regression).count();
            b.append(n == 0 ? "no regression beyond " : n + " regression(s) beyond ").append(
                    java.math.BigDecimal.valueOf(c.failOnRegressionPercent()).stripTrailingZeros().toPlainString())
                    .append(" %\n");
        }
        return b.toString();
    }

    public static String json(CompareResult c) {
        try {
            return JsonFormat.MAPPER.writeValueAsString(c) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
