package dev.provbench.compare;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.provbench.stats.Comparison;
import dev.provbench.stats.Summary;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * benchstat's question for provbench results: for every cell and unit present on both sides, the old and new
 * medians with their confidence intervals, the change, the Mann-Whitney p-value and whether it is significant;
 * and, with a threshold, which rows are regressions (significantly worse, in the unit's direction, by more
 * than the threshold).
 */
public record CompareResult(double alpha, double confidence, Double failOnRegressionPercent, List<Row> rows,
                            List<String> onlyOld, List<String> onlyNew) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    /** {@code ciLow}/{@code ciHigh} are null when the interval is unbounded (too few samples; see the note). */
    public record Side(int n, double median, Double ciLow, Double ciHigh, double min, double max, String note) {
        static Side of(Summary s) {
            return new Side(s.n(), s.median(), Double.isFinite(s.ciLow()) ? s.ciLow() : null,
                    Double.isFinite(s.ciHigh()) ? s.ciHigh() : null, s.min(), s.max(), s.note());
        }
    }

    /**
     * @param better      "higher", "lower", or null (no direction: never a regression)
     * @param deltaPercent null when the old median is 0
     * @param regression  significantly worse by more than the threshold (false without a threshold)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Row(String cell, String unit, String better, Side old, Side now, Double deltaPercent, double p,
                      boolean significant, boolean regression, String note) {
    }

    public static CompareResult of(Samples old, Samples now, double alpha, double confidence, Double failPct) {
        List<Row> rows = new ArrayList<>();
        List<String> onlyOld = new ArrayList<>();
        List<String> onlyNew = new ArrayList<>();
        Map<String, String> better = new TreeMap<>(old.directions());
        better.putAll(now.directions());
        old.values().forEach((cell, units) -> {
            Map<String, List<Double>> other = now.values().get(cell);
            units.forEach((unit, a) -> {
                List<Double> b = other == null ? null : other.get(unit);
                if (b == null) {
                    onlyOld.add(cell + " " + unit);
                    return;
                }
                Summary so = Summary.of(a.stream().mapToDouble(Double::doubleValue).toArray(), confidence);
                Summary sn = Summary.of(b.stream().mapToDouble(Double::doubleValue).toArray(), confidence);
                Comparison c = Comparison.of(so, sn, alpha);
                String dir = better.get(unit);
                Double delta = Double.isNaN(c.deltaPercent()) ? null : c.deltaPercent();
                boolean worse = delta != null && c.significant() && failPct != null
                        && ("higher".equals(dir) && delta < -failPct || "lower".equals(dir) && delta > failPct);
                rows.add(new Row(cell, unit, dir, Side.of(so), Side.of(sn), delta, c.p(), c.significant(), worse,
                        c.note()));
            });
        });
        now.values().forEach((cell, units) -> units.keySet().forEach(unit -> {
            if (!old.values().containsKey(cell) || !old.values().get(cell).containsKey(unit)) {
                onlyNew.add(cell + " " + unit);
            }
        }));
        return new CompareResult(alpha, confidence, failPct, rows, onlyOld, onlyNew);
    }

    public boolean regressed() {
        return rows.stream().anyMatch(Row::regression);
    }
}
