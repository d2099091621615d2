package dev.provbench.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import dev.provbench.measure.Operations;
import dev.provbench.report.JUnitXml;
import dev.provbench.report.RunReport;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@code --junit FILE} of run, sweep and compare: checked before anything starts, written at the end. */
final class Junit {
    private Junit() {
    }

    static void check(CommandSpec spec, Path file) {
        if (file == null) {
            return;
        }
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--junit': directory " + dir
                    + " does not exist");
        }
        if (Files.isDirectory(file)) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--junit': " + file
                    + " is a directory");
        }
    }

    static void write(PrintWriter err, Path file, String xml) {
        try {
            Files.writeString(file, xml);
            err.println("JUnit XML written to " + file);
        } catch (IOException e) {
            err.println("cannot write the JUnit XML to " + file + ": " + e.getMessage());
        }
        err.flush();
    }

    /** The cases of one run: its thresholds, or an error when it ended without a report or failed (exit 3). */
    static List<JUnitXml.Case> runCases(String classname, String prefix, RunReport r, int exitCode, String message,
            double seconds) {
        List<JUnitXml.Case> out = new ArrayList<>();
        if (r == null) {
            out.add(JUnitXml.Case.error(classname, prefix + "run", seconds, "run-failed", message == null
                    ? "the run failed" : message));
            return out;
        }
        Operations.Window w = r.section(Operations.WINDOW);
        Operations.Ops o = r.section(Operations.OPS);
        double each = w == null ? seconds : w.seconds();
        for (RunReport.Threshold t : r.thresholds() == null ? List.<RunReport.Threshold>of() : r.thresholds()) {
            String text = t.name() + ": actual " + num(t.actual()) + ", limit " + num(t.limit());
            out.add(t.passed() ? JUnitXml.Case.passed(classname, prefix + t.name(), each, text)
                    : JUnitXml.Case.failed(classname, prefix + t.name(), each, "threshold", text, text + (o == null ? ""
                    : String.format(Locale.ROOT, " (run %s: %d creates, %d deletes, %d failures, %.3f ops/s)",
                    r.runId(), o.creates(), o.deletes(), o.failures(), o.opsPerSecond()))));
        }
        if (exitCode == 3) {
            out.add(JUnitXml.Case.error(classname, prefix + "run", seconds, "run-failed", message == null
                    ? "the run failed or was aborted" : message));
        }
        return out;
    }

    private static String num(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.6g", v);
    }
}
