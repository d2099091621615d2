package dev.provbench.cli;

import dev.provbench.compare.CompareFormat;
import dev.provbench.compare.CompareResult;
import dev.provbench.compare.Samples;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code provbench compare OLD NEW}: benchstat's question for provbench results — per cell and unit, the old
 * and new medians with confidence intervals, the change and whether it is significant (Mann-Whitney U) — and
 * a gate for CI: exit 1 when a metric is significantly worse, in its direction, by more than
 * {@code --fail-on-regression} percent.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Compare two sets of results: report JSON files, directories of them, or files of Go "
                + "benchmark lines (--format bench). Several inputs on one side are that side's samples; separate "
                + "the sides with --new when a side has more than one input.",
                "Exit codes: 0 no regression (or no threshold), 1 a regression beyond --fail-on-regression, 2 bad "
                        + "usage or unreadable input."})
public class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "OLD", description = "The old side; with a single NEW input, the "
            + "last positional argument is NEW.")
    List<Path> old;

    @Option(names = "--new", paramLabel = "NEW", description = "An input of the new side (repeatable).")
    List<Path> newer;

    @Option(names = "--format", description = "table, markdown or json (default ${DEFAULT-VALUE}).")
    String format = "table";

    @Option(names = "--alpha", description = "Significance level of the Mann-Whitney U test (default "
            + "${DEFAULT-VALUE}; 0.001 to 0.5).")
    double alpha = 0.05;

    @Option(names = "--confidence", description = "Level of the medians' confidence intervals (default "
            + "${DEFAULT-VALUE}; 0.5 to 0.999).")
    double confidence = 0.95;

    @Option(names = "--fail-on-regression", paramLabel = "PCT", description = "Exit 1 when a metric is "
            + "significantly worse by more than PCT percent (ops/s lower, latency higher, …; 0 to 1000).")
    Double failPct;

    @Option(names = "--junit", paramLabel = "FILE", description = "Also write JUnit XML: one testcase per compared "
            + "metric and cell, a failure for each regression beyond --fail-on-regression.")
    Path junit;

    static String junit(CompareResult r) {
        java.util.List<dev.provbench.report.JUnitXml.Case> cases = new java.util.ArrayList<>();
        for (CompareResult.Row row : r.rows()) {
            String text = String.format(java.util.Locale.ROOT, "%s %s: old %s, new %s, %s (p=%.3g, n=%d+%d)%s",
                    row.cell(), row.unit(), CompareFormat.side(row.old()), CompareFormat.side(row.now()),
                    row.deltaPercent() == null ? "no change figure" : String.format(java.util.Locale.ROOT, "%+.2f %%",
                            row.deltaPercent()), row.p(), row.old().n(), row.now().n(),
                    row.significant() ? "" : " ~ not significant");
            String cls = "provbench.compare." + row.cell().replaceFirst("^Benchmark", "");
            cases.add(row.regression() ? dev.provbench.report.JUnitXml.Case.failed(cls, row.unit(), 0, "regression",
                    text + "; worse than the allowed " + r.failOnRegressionPercent() + " %", null)
                    : dev.provbench.report.JUnitXml.Case.passed(cls, row.unit(), 0, text));
        }
        return dev.provbench.report.JUnitXml.suite("provbench compare", java.time.Instant.now(), 0,
                java.util.Map.of("alpha", Double.toString(r.alpha())), cases, CompareFormat.table(r));
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<Path> olds = old;
        List<Path> news = newer;
        if (news == null || news.isEmpty()) {
            if (old.size() < 2) {
                throw new ParameterException(spec.commandLine(), "compare needs OLD and NEW (or --new NEW)");
            }
            olds = old.subList(0, old.size() - 1);
            news = List.of(old.get(old.size() - 1));
        }
        if (!(alpha >= 0.001 && alpha <= 0.5)) {
            throw new ParameterException(spec.commandLine(), "--alpha must be between 0.001 and 0.5, not " + alpha);
        }
        if (!(confidence >= 0.5 && confidence <= 0.999)) {
            throw new ParameterException(spec.commandLine(), "--confidence must be between 0.5 and 0.999, not "
                    + confidence);
        }
        if (failPct != null && !(failPct >= 0 && failPct <= 1000)) {
            throw new ParameterException(spec.commandLine(), "--fail-on-regression must be between 0 and 1000, not "
                    + failPct);
        }
        if (!List.of("table", "markdown", "json").contains(format.toLowerCase(java.util.Locale.ROOT))) {
            throw new ParameterException(spec.commandLine(), "--format must be table, markdown or json, not '"
                    + format + "'");
        }
        Junit.check(spec, junit);
        Samples a;
        Samples b;
        try {
            a = Samples.read(olds);
            b = Samples.read(news);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "cannot read the inputs: " + e.getMessage());
        }
        CompareResult r = CompareResult.of(a, b, alpha, confidence, failPct);
        out.print(switch (format.toLowerCase(java.util.Locale.ROOT)) {
            case "markdown" -> CompareFormat.markdown(r);
            case "json" -> CompareFormat.json(r);
            default -> CompareFormat.table(r);
        });
        out.flush();
        if (junit != null) {
            Junit.write(spec.commandLine().getErr(), junit, junit(r));
        }
        return r.regressed() ? 1 : 0;
    }
}
