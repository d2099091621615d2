package dev.provbench.cli;

import dev.provbench.run.RunLimits;
import dev.provbench.run.RunRequest;
import dev.provbench.sweep.SweepExecution;
import dev.provbench.sweep.SweepExecutor;
import dev.provbench.sweep.SweepFormats;
import dev.provbench.sweep.SweepPlan;
import dev.provbench.sweep.SweepRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * {@code provbench sweep}: {@code provbench run} over a matrix of settings, each cell repeated, all runs in one
 * random order; per cell the medians with confidence intervals, and which csi-provisioner setting to use. Its
 * own options are {@link SweepRequest}'s; every other option of {@code provbench run} is added to it by
 * {@link CommandLineSetup} and applies to every run.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run the same load over a matrix of settings (comma lists: --qps, --burst, --threads, "
                + "--provisioner-qps, --provisioner-burst), --repeats times each, in a random order; write every "
                + "report, sweep.json, sweep.bench (for benchstat), sweep.md and sweep.html to --out, and recommend "
                + "csi-provisioner's --kube-api-qps/--kube-api-burst. Every option of 'provbench run' applies to "
                + "every run.",
                "Exit codes: 0 ok, 1 a threshold failed in some run, 2 bad usage, 3 a run or the sweep failed, or "
                        + "it was aborted."})
public class SweepCommand implements Callable<Integer>, Main.EarlyChecked {
    @Spec
    CommandSpec spec;

    @Mixin
    SweepRequest request = new SweepRequest();

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory for the results "
            + "(created; must not hold an earlier sweep).")
    Path out;

    @Option(names = "--format", description = "What goes to stdout at the end: table, markdown or json (default "
            + "${DEFAULT-VALUE}).")
    String format = "table";

    @Option(names = "--junit", paramLabel = "FILE", description = "Also write JUnit XML: per run, one testcase per "
            + "threshold (an error when the run failed).")
    Path junit;

    @Mixin
    HttpPortOption http = new HttpPortOption();

    private final SweepExecutor executor;
    private final RunLimits limits;

    public SweepCommand(SweepExecutor executor, RunLimits limits) {
        this.executor = executor;
        this.limits = limits;
    }

    /** The run options, bound by {@link CommandLineSetup} to {@code request.run}. */
    RunRequest runOptions() {
        return request.run;
    }

    private ParameterException bad(String option, String message) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + message);
    }

    @Override
    public Integer httpPort() {
        return http.port;
    }

    @Override
    public void checkEarly(RunLimits.Values values) {
        validate(values);
    }

    SweepPlan validate() {
        return validate(limits.values());
    }

    SweepPlan validate(RunLimits.Values values) {
        http.check(spec);
        if (!java.util.List.of("table", "markdown", "json").contains(format)) {
            throw bad("--format", "'" + format + "' is not table, markdown or json");
        }
        Path dir = out.toAbsolutePath();
        if (dir.getParent() != null && !Files.isDirectory(dir.getParent())) {
            throw bad("--out", "directory " + dir.getParent() + " does not exist");
        }
        Junit.check(spec, junit);
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw bad("--out", dir + " is not a directory");
        }
        if (Files.isDirectory(dir)) {
            try (Stream<Path> s = Files.list(dir)) {
                if (s.findAny().isPresent()) {
                    throw bad("--out", dir + " is not empty (a sweep's samples must not mix with others)");
                }
            } catch (IOException e) {
                throw bad("--out", dir + " cannot be read");
            }
        }
        try {
            return SweepPlan.of(request, values, System.getenv());
        } catch (RunRequest.Invalid e) {
            if (e.field().equals("storageClass") && !request.run.local) {
                throw new ParameterException(spec.commandLine(), "Missing required option: '--storage-class' "
                        + "(or use --local)");
            }
            throw bad(e.flag(), e.getMessage());
        }
    }

    @Override
    public Integer call() {
        SweepPlan plan = validate();
        PrintWriter err = spec.commandLine().getErr();
        Main.announceHttp(err, "provbench sweep");
        SweepExecution s = new SweepExecution(plan);
        AtomicInteger signals = new AtomicInteger();
        Runnable restore = Signals.onStop(sig -> {
            if (signals.getAndIncrement() == 0) {
                err.println("provbench sweep: SIG" + sig + ": aborting; the run in progress cleans up and reports, "
                        + "csi-provisioner's settings are restored, the results so far are written, exit code 3");
            } else {
                err.println("provbench sweep: SIG" + sig + " again: cleanup goes on (bounded by --cleanup-timeout)");
            }
            err.flush();
            s.abort();
        });
        try {
            executor.execute(s, new SweepExecutor.Output(out, commandLine()), line -> {
                err.println(line.startsWith("provbench sweep") || line.startsWith("  [") ? line
                        : line.startsWith("  ") ? line : "provbench " + line);
                err.flush();
            });
        } finally {
            restore.run();
        }
        PrintWriter stdout = spec.commandLine().getOut();
        if (s.result() != null) {
            stdout.print(switch (format) {
                case "markdown" -> SweepFormats.markdown(s.result(), commandLine());
                case "json" -> SweepFormats.json(s.result());
                default -> SweepFormats.table(s.result());
            });
            stdout.flush();
            err.println("provbench sweep: results in " + out.toAbsolutePath() + " (sweep.json, sweep.bench, sweep.md, "
                    + "sweep.html, runs/)");
        }
        if (junit != null) {
            Junit.write(err, junit, junit(s));
        }
        if (s.message() != null) {
            err.println("provbench sweep: " + s.state().json() + ": " + s.message());
        }
        err.flush();
        return s.exitCode();
    }

    static String junit(SweepExecution s) {
        java.util.List<dev.provbench.report.JUnitXml.Case> cases = new java.util.ArrayList<>();
        for (var d : s.doneRuns()) {
            var p = d.planned();
            cases.addAll(Junit.runCases("provbench.sweep.cell" + p.cell().index(),
                    "run " + p.seq() + " (" + p.cell().label(s.plan().varying()) + ", repeat " + p.repeat() + "): ",
                    d.report(), d.exitCode(), d.message(), d.seconds()));
        }
        if (s.state() == dev.provbench.run.RunExecution.State.ABORTED || s.doneRuns().size() < s.plan().runs()) {
            cases.add(dev.provbench.report.JUnitXml.Case.error("provbench.sweep", "sweep", 0, "sweep-incomplete",
                    s.doneRuns().size() + " of " + s.plan().runs() + " runs ended" + (s.message() == null ? ""
                            : ": " + s.message())));
        }
        double secs = s.started() == null || s.finished() == null ? 0
                : (s.finished().toEpochMilli() - s.started().toEpochMilli()) / 1000.0;
        return dev.provbench.report.JUnitXml.suite("provbench sweep " + s.id(), s.started() == null ? s.created()
                : s.started(), secs, java.util.Map.of("seed", Long.toString(s.plan().seed())), cases,
                s.result() == null ? "" : SweepFormats.table(s.result()));
    }

    /** The command as given, for the files that say how they were made. */
    private String commandLine() {
        String[] args = spec.commandLine().getParseResult() == null ? new String[0]
                : spec.commandLine().getParseResult().originalArgs().toArray(new String[0]);
        return "provbench " + String.join(" ", args);
    }
}
