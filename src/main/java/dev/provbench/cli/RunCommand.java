package dev.provbench.cli;

import dev.provbench.report.Format;
import dev.provbench.report.RunReport;
import dev.provbench.run.ExitCodes;
import dev.provbench.run.RunExecution;
import dev.provbench.run.RunExecutor;
import dev.provbench.run.RunLimits;
import dev.provbench.run.RunRegistry;
import dev.provbench.run.RunRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code provbench run}: one closed-loop PVC create/delete run against a cluster, or {@code --local}. Its
 * run options are {@link RunRequest}'s, bound as a mixin; only the output options are its own.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Create and delete PVCs in a closed loop and report ops/s, latency, API requests and "
                + "client-side throttling over a measured window after a warm-up.",
                "Exit codes: 0 ok, 1 a threshold failed, 2 bad usage, 3 the run failed."})
public class RunCommand implements Callable<Integer>, Main.EarlyChecked {

    @Spec
    CommandSpec spec;

    @Mixin
    RunRequest request = new RunRequest();

    @Option(names = "--format", description = "table, json, markdown, bench or html (default ${DEFAULT-VALUE}).")
    Format format = Format.TABLE;

    @Option(names = "--out", description = "Write the report in --format to this file (the table still goes to "
            + "stdout).")
    Path out;

    @Option(names = "--junit", paramLabel = "FILE", description = "Also write JUnit XML: one testcase per threshold "
            + "(an error when the run failed).")
    Path junit;

    @Mixin
    HttpPortOption http = new HttpPortOption();

    private final RunExecutor executor;
    private final RunRegistry runs;
    private final RunLimits limits;

    public RunCommand(RunExecutor executor, RunRegistry runs, RunLimits limits) {
        this.executor = executor;
        this.runs = runs;
        this.limits = limits;
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

    RunRequest.Checked validate() {
        return validate(limits.values());
    }

    /** Checks every flag before anything starts; a bad one is exit code 2 naming it. */
    RunRequest.Checked validate(RunLimits.Values values) {
        http.check(spec);
        Path parent = out == null ? null : out.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw bad("--out", Files.exists(parent) ? parent + " is not a directory"
                    : "directory " + parent + " does not exist");
        }
        Junit.check(spec, junit);
        try {
            // the environment of `hack/local-cluster env` describes a real cluster, not the local one
            return request.withEnvironmentDefaults(System.getenv()).check(values);
        } catch (RunRequest.Invalid e) {
            if (e.field().equals("storageClass") && !request.local) {
                throw new ParameterException(spec.commandLine(), "Missing required option: '--storage-class' "
                        + "(or use --local)");
            }
            throw bad(e.flag(), e.getMessage());
        }
    }

    @Override
    public Integer call() throws Exception {
        RunRequest.Checked checked = validate();
        PrintWriter err = spec.commandLine().getErr();
        Main.announceHttp(err, "provbench run");
        RunExecution e = new RunExecution(checked);
        Optional<RunExecution> other = runs.begin(e);
        if (other.isPresent()) {
            err.println("provbench run: run " + other.get().id() + " is active in this process");
            return ExitCodes.FAILED;
        }
        java.util.concurrent.atomic.AtomicInteger signals = new java.util.concurrent.atomic.AtomicInteger();
        Runnable restore = Signals.onStop(sig -> {
            if (signals.getAndIncrement() == 0) {
                err.println("provbench run: SIG" + sig + ": aborting; cycles in flight get the abort grace ("
                        + checked.config().abortGrace().toSeconds() + "s), then cleanup (at most "
                        + checked.config().cleanupTimeout().toSeconds() + "s), the report and exit code 3");
            } else {
                err.println("provbench run: SIG" + sig + " again: cleanup goes on (bounded by --cleanup-timeout); "
                        + "SIGKILL would leave the run's claims: provbench cleanup --run-id " + e.id()
                        + " " + dev.provbench.load.RunNamespaces.of(checked.config()).flags() + " removes them");
            }
            err.flush();
            e.abort();
        });
        try {
            executor.execute(e, line -> {
                err.println(line.startsWith("provbench run") || line.startsWith("[") ? line : "provbench run: " + line);
                err.flush();
            });
        } finally {
            runs.end(e);
            restore.run();
        }
        if (e.report() != null) {
            write(e.report());
        }
        if (junit != null) {
            double secs = e.started() == null || e.finished() == null ? 0
                    : (e.finished().toEpochMilli() - e.started().toEpochMilli()) / 1000.0;
            Junit.write(err, junit, dev.provbench.report.JUnitXml.suite("provbench run " + e.id(),
                    e.started() == null ? e.created() : e.started(), secs, java.util.Map.of("runId", e.id()),
                    Junit.runCases("provbench.run", "", e.report(), e.exitCode(), e.message(),
                            secs), e.report() == null ? "" : dev.provbench.report.Format.TABLE.render(e.report())));
        }
        if (e.state() == RunExecution.State.ABORTED && e.report() != null) {
            err.println("provbench run: aborted; the report covers the time until the abort");
        }
        return e.exitCode();
    }

    private void write(RunReport report) throws java.io.IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        if (out != null) {
            Files.writeString(out, format.render(report));
            stdout.print(Format.TABLE.render(report));
            spec.commandLine().getErr().println("report written to " + out);
        } else {
            stdout.print(format.render(report));
        }
        stdout.flush();
    }
}
