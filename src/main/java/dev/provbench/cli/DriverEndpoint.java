package dev.provbench.cli;

import dev.provbench.run.ExitCodes;
import dev.provbench.csi.CsiServer;
import dev.provbench.csi.DriverConfig;
import dev.provbench.csi.Endpoint;
import io.quarkus.runtime.Quarkus;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.io.IOException;

/** {@code --endpoint} and serving the mock driver until stopped: shared by {@code driver} and {@code serve}. */
public class DriverEndpoint {

    @Option(names = "--endpoint", paramLabel = "ENDPOINT",
            description = "CSI endpoint: unix:///path/csi.sock, a bare path, or tcp://host:port for debugging. "
                    + "Default: $CSI_ENDPOINT, else unix:///csi/csi.sock.")
    String endpoint;

    /**
     * Starts {@code server} on the endpoint (a bad one is a usage error naming {@code --endpoint}), runs
     * {@code whenServing}, and waits until the application is stopped.
     */
    int serveUntilStopped(CommandSpec spec, CsiServer server, DriverConfig config, Runnable whenServing) {
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
            spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
            return ExitCodes.FAILED;
        }
        whenServing.run();
        Quarkus.waitForExit();
        return ExitCodes.OK;
    }
}
