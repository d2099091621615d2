package dev.provbench.cli;

import dev.provbench.csi.CsiServer;
import dev.provbench.csi.DriverConfig;
import dev.provbench.csi.Endpoint;
import io.quarkus.runtime.Quarkus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.util.concurrent.Callable;

/** {@code provbench driver}: serve the mock CSI driver until SIGTERM/SIGINT. */
@Command(name = "driver", mixinStandardHelpOptions = true,
        description = {"Serve the mock CSI driver (Identity, Controller, Node) until stopped.",
                "Other settings come from configuration: PROVBENCH_DRIVER_NAME, PROVBENCH_DRIVER_NODE_ID, "
                        + "PROVBENCH_DRIVER_LIMITS_*, PROVBENCH_DRIVER_INJECT__<Method>__LATENCY ... "
                        + "(see docs/driver.md). HTTP (health, metrics, control) listens on QUARKUS_HTTP_PORT "
                        + "(default 8080)."})
public class DriverCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--endpoint", paramLabel = "ENDPOINT",
            description = "CSI endpoint: unix:///path/csi.sock, a bare path, or tcp://host:port for debugging. "
                    + "Default: $CSI_ENDPOINT, else unix:///csi/csi.sock.")
    String endpoint;

    private final CsiServer server;
    private final DriverConfig config;

    public DriverCommand(CsiServer server, DriverConfig config) {
        this.server = server;
        this.config = config;
    }

    @Override
    public Integer call() {
        Endpoint where;
        try {
            where = Endpoint.parse(endpoint != null ? endpoint : config.endpoint());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--endpoint': "
                    + e.getMessage());
        }
        try {
            server.start(where);
        } catch (IOException | RuntimeException e) {
            spec.commandLine().getErr().println("provbench driver: " + e.getMessage());
            return ExitCodes.FAILED;
        }
        Quarkus.waitForExit();
        return ExitCodes.OK;
    }
}
