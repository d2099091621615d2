package dev.provbench.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --http-port} of {@code run} and {@code sweep}: where their live page and metrics listen ({@link Main}). */
public class HttpPortOption {
    @Option(names = "--http-port", paramLabel = "PORT", description = "Port of the live page and metrics (0 = any "
            + "free port; default 8080, or any free port when 8080 is taken). The URL is printed at start.")
    Integer port;

    /** A port out of range is exit code 2 naming the flag. */
    void check(CommandSpec spec) {
        if (port != null && (port < 0 || port > 65535)) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--http-port': " + port
                    + " is not a port (0 to 65535; 0 = any free port)");
        }
    }
}
