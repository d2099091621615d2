package dev.provbench.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

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
}
