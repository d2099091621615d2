package dev.provbench.sweep;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.provbench.compare.Samples;
import dev.provbench.report.BenchFormat;
import dev.provbench.report.RunReport;
import dev.provbench.stats.Comparison;
import dev.provbench.stats.Summary;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a sweep found ({@code sweep.json}): per cell its settings and, per metric, the median with the 95 %
 * confidence interval of the median (order statistics, as benchstat), min and max over the cell's runs; the
 * recommendation per tool setting; every run in the order it ran. The figures are computed from the very
 * benchmark lines of {@code sweep.bench} ({@link #bench}), so benchstat reading that file shows the same medians.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"schemaVersion", "tool", "state", "seed", "started", "finished", "control", "repeats",
        "confidence", "alpha", "tolerancePercent", "varying", "run", "cells", "recommendations", "runs", "warnings"})
public record SweepResult(int schemaVersion, RunReport.Tool tool, String state, long seed, String started,
                          String finished, String control, int repeats, double confidence, double alpha,
                          double tolerancePercent, List<String> varying, Object run, List<CellResult> cells,
                          List<Recommendation> recommendations, List<RunEntry> runs, List<String> warnings) {

    public static final int SCHEMA_VERSION = 1;
    public static final double CONFIDENCE = 0.95;
    /** The unit the recommendation and the chart are about. */
    public static final String OPS = "ops/s";

    /**
     * A metric over a cell's runs. {@code ciLow}/{@code ciHigh} are null when the interval is unbounded (fewer
     * than 6 runs at 95 %); {@code minMaxConfidence} is how sure [min, max] holds the median: 1 − 2·½ⁿ.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Stat(int n, double median, Double ciLow, Double ciHigh, double min, double max,
                       double minMaxConfidence, String note) {
        static Stat of(Summary s) {
            return new Stat(s.n(), s.median(), Double.isFinite(s.ciLow()) ? s.ciLow() : null,
                    Double.isFinite(s.ciHigh()) ? s.ciHigh() : null, s.min(), s.max(), s.minMaxConfidence(),
                    s.note());
        }

        public boolean bounded() {
            return ciLow != null && ciHigh != null;
        }
    }

    /**
     * @param n          runs with a report
     * @param failedRuns runs that ended without a report or with exit code 3
     * @param metrics    unit (as in {@code sweep.bench}) → statistics
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CellResult(int index, String name, Map<String, String> settings, int n, int failedRuns,
                             Map<String, Stat> metrics) {
    }

    /**
     * @param seq      place in the order, from 1
     * @param file     the report, relative to the sweep's directory
     * @param exitCode as {@code provbench run} would have exited
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record RunEntry(int seq, int cell, int repeat, String runId, String state, int exitCode, String file,
                           Double seconds, Double opsPerSecond, String message) {
    }

    /**
     * For one tool setting: the smallest provisioner setting within the tolerance of the best cell's median
     * ops/s and not significantly below it.
     *
     * @param p two-sided Mann-Whitney U p-value of the recommended cell against the best (1 when it is the best)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Recommendation(String tool, Double provisionerQps, Integer provisionerBurst, Double opsPerSecond,
                                 Double percentOfBest, Double p, Integer bestCell, Integer recommendedCell,
                                 String text, List<String> warnings) {
    }

    /** A finished run: its plan entry and what it produced. */
    public record Done(SweepPlan.Planned planned, String runId, String state, int exitCode, RunReport report,
                       double seconds, String message) {
        boolean counts() {
            return report != null && exitCode != dev.provbench.run.ExitCodes.FAILED;
        }
    }

    /** The report file of a run, relative to the sweep's directory. */
    public static String file(SweepPlan.Planned p) {
        return String.format(Locale.ROOT, "runs/%03d-cell%d-r%d.json", p.seq(), p.cell().index(), p.repeat());
    }

    /**
     * {@code sweep.bench}: the header, one line per counted run (the cell's name: the axes that vary), the units.
     * Fixed settings are a comment line: as a configuration line they would split benchstat's tables between
     * two sweeps that differ in them.
     */
    public static String bench(SweepPlan plan, List<Done> done) {
        StringBuilder b = new StringBuilder(BenchFormat.header(plan.base().request().local ? "local" : "cluster",
                plan.base().config().storageClass()));
        b.append("# provbench sweep, seed ").append(plan.seed()).append("; fixed: ");
        SweepPlan.Cell first = plan.cells().get(0);
        List<String> fixed = new ArrayList<>();
        first.settings().forEach((k, v) -> {
            if (!plan.varying().contains(k)) {
                fixed.add(k + "=" + v);
            }
        });
        b.append(fixed.isEmpty() ? "none" : String.join(" ", fixed)).append('\n');
        for (Done d : done) {
            if (d.counts()) {
                b.append(BenchFormat.line(d.report(), d.planned().cell().benchName(plan.varying())));
            }
        }
        return b.append(BenchFormat.units(dev.provbench.run.Measurements.kinds())).toString();
    }

    public static SweepResult of(SweepPlan plan, List<Done> done, String state, Instant started, Instant finished,
                                 String version) {
        Samples samples = Samples.parseText(bench(plan, done));
        List<String> warnings = new ArrayList<>();
        List<CellResult> cells = new ArrayList<>();
        Map<Integer, Map<String, Summary>> byCell = new LinkedHashMap<>();
        for (SweepPlan.Cell c : plan.cells()) {
            String name = c.benchName(plan.varying());
            Map<String, List<Double>> units = samples.values().getOrDefault(name, Map.of());
            Map<String, Stat> metrics = new LinkedHashMap<>();
            Map<String, Summary> sums = new LinkedHashMap<>();
            units.forEach((unit, vals) -> {
                Summary s = Summary.of(vals.stream().mapToDouble(Double::doubleValue).toArray(), CONFIDENCE);
                sums.put(unit, s);
                metrics.put(unit, Stat.of(s));
            });
            byCell.put(c.index(), sums);
            int n = (int) done.stream().filter(d -> d.planned().cell() == c && d.counts()).count();
            int failed = (int) done.stream().filter(d -> d.planned().cell() == c && !d.counts()).count();
            if (failed > 0) {
                warnings.add("cell " + c.index() + " (" + c.label(plan.varying()) + "): " + failed + " run(s) failed "
                        + "and are not in its figures");
            }
            // what the runs' reports say may mislead (not steady, warm-up capped, a source restarted …), per cell
            Map<String, Integer> said = new LinkedHashMap<>();
            done.stream().filter(d -> d.planned().cell() == c && d.counts())
                    // a report with nothing to warn about has no warnings (null: left out of its JSON)
                    .flatMap(d -> java.util.Objects.requireNonNullElse(d.report().warnings(), List.<String>of()).stream()
                            .map(w -> w.replaceAll("[0-9]+(\\.[0-9]+)?", "N")))
                    .forEach(w -> said.merge(w.length() > 160 ? w.substring(0, 160) + "…" : w, 1, Integer::sum));
            said.forEach((w, k) -> warnings.add("cell " + c.index() + " (" + c.label(plan.varying()) + "): " + k + " of "
                    + n + " run(s): " + w));
            cells.add(new CellResult(c.index(), name, c.settings(), n, failed, metrics));
        }
        List<Recommendation> recs = recommend(plan, byCell);
        recs.forEach(r -> r.warnings().forEach(w -> warnings.add(r.tool() + ": " + w)));
        List<RunEntry> runs = done.stream().map(d -> new RunEntry(d.planned().seq(), d.planned().cell().index(),
                d.planned().repeat(), d.runId(), d.state(), d.exitCode(), d.report() == null ? null : file(d.planned()),
                Math.round(d.seconds() * 10) / 10.0, d.report() == null ? null : d.report().section(dev.provbench.measure.Operations.OPS).opsPerSecond(),
                d.message())).toList();
        return new SweepResult(SCHEMA_VERSION, new RunReport.Tool("provbench", version), state, plan.seed(),
                started == null ? null : started.toString(), finished == null ? null : finished.toString(), plan.control().describe(), plan.request().repeats, CONFIDENCE, plan.request().alpha,
                plan.request().tolerance, plan.varying(), plan.request().run, cells, recs, runs, warnings);
    }

    /** The smallest two-sided exact p-value two samples of these sizes can reach: 2 / C(n1 + n2, n1). */
    static double minimumP(int n1, int n2) {
        double c = 1;
        for (int i = 1; i <= n1; i++) {
            c = c * (n2 + i) / i;
        }
        return Math.min(1, 2 / c);
    }

    static List<Recommendation> recommend(SweepPlan plan, Map<Integer, Map<String, Summary>> byCell) {
        List<Recommendation> out = new ArrayList<>();
        if (!plan.varying().contains("provisioner-qps") && !plan.varying().contains("provisioner-burst")) {
            return out;
        }
        double alpha = plan.request().alpha;
        double tol = plan.request().tolerance;
        Map<String, List<SweepPlan.Cell>> groups = new LinkedHashMap<>();
        plan.cells().forEach(c -> groups.computeIfAbsent(c.toolKey(), k -> new ArrayList<>()).add(c));
        groups.forEach((tool, cs) -> {
            List<String> warnings = new ArrayList<>();
            List<SweepPlan.Cell> sorted = cs.stream().filter(c -> byCell.get(c.index()).containsKey(OPS))
                    .sorted(Comparator.comparingDouble(SweepPlan.Cell::provisionerOrder)
                            .thenComparingInt(SweepPlan.Cell::provisionerBurst)).toList();
            if (sorted.size() < 2) {
                out.add(new Recommendation(tool, null, null, null, null, null, null, null,
                        "no recommendation: fewer than two provisioner settings have results", List.of()));
                return;
            }
            SweepPlan.Cell best = sorted.get(0);
            for (SweepPlan.Cell c : sorted) {
                if (byCell.get(c.index()).get(OPS).median() > byCell.get(best.index()).get(OPS).median()) {
                    best = c;
                }
            }
            Summary b = byCell.get(best.index()).get(OPS);
            List<SweepPlan.Cell> all = cs.stream().sorted(Comparator.comparingDouble(SweepPlan.Cell::provisionerOrder)
                    .thenComparingInt(SweepPlan.Cell::provisionerBurst)).toList();
            if (best == all.get(all.size() - 1)) {
                warnings.add("the best cell is the largest provisioner setting (" + SweepPlan.provisionerText(best)
                        + "): throughput may not be saturated; extend --provisioner-qps");
            }
            boolean fewWarned = false;
            SweepPlan.Cell pick = null;
            double pickP = 1;
            for (SweepPlan.Cell c : sorted) {
                Summary s = byCell.get(c.index()).get(OPS);
                double p = c == best ? 1 : Comparison.of(s, b, alpha).p();
                if (c != best && !fewWarned && minimumP(s.n(), b.n()) > alpha) {
                    warnings.add(String.format(Locale.ROOT, "with %d against %d runs the exact two-sided p-value "
                                    + "cannot go below %.3g: too few repeats for significance at alpha %s, so only "
                                    + "the %s %% tolerance can set a cell apart (--repeats %d or more)", s.n(), b.n(),
                            minimumP(s.n(), b.n()), SweepPlan.fmt(alpha), SweepPlan.fmt(tol),
                            Comparison.samplesToDetect(alpha)));
                    fewWarned = true;
                }
                boolean within = s.median() >= b.median() * (1 - tol / 100);
                boolean below = p <= alpha && s.median() < b.median();
                if (within && !below) {
                    pick = c;
                    pickP = p;
                    break;
                }
            }
            Summary ps = byCell.get(pick.index()).get(OPS);
            double pct = b.median() == 0 ? 100 : ps.median() / b.median() * 100;
            String text = String.format(Locale.ROOT, "recommend --kube-api-qps=%s --kube-api-burst=%d: %.4g ops/s "
                            + "(%.1f %% of the best, p=%.3g)", SweepPlan.fmt(pick.provisionerQps()),
                    pick.provisionerBurst(), ps.median(), pct, pickP);
            out.add(new Recommendation(tool, pick.provisionerQps(), pick.provisionerBurst(), ps.median(),
                    Math.round(pct * 10) / 10.0, pickP, best.index(), pick.index(), text, warnings));
        });
        return out;
    }
}
