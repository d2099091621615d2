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

    @Option(names = "--allow-remote", description = "Accept a tcp:// endpoint on an address other than loopback "
            + "(the CSI API has no authentication: anyone who reaches it can create and delete volumes).")
    boolean allowRemote;

    /**
     * Starts {@code server} on the endpoint (a bad one is a usage error naming {@code --endpoint}), runs
     * {@code whenServing}, and waits until the application is stopped.
     */
    int serveUntilStopped(CommandSpec spec, CsiServer server, DriverConfig config, Runnable whenServing) {
        Endpoint where = check(spec, config);
        if (!server.isServing()) { // else started before Quarkus (csi.EarlyDriver), with the same checks
            try {
                server.start(where);
            } catch (IOException | RuntimeException e) {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
                return ExitCodes.FAILED;
            }
        }
        whenServing.run();
        return untilStopped();
    }

    /** The endpoint to serve, checked with the configuration; a bad one is a usage error naming the flag. */
    Endpoint check(CommandSpec spec, DriverConfig config) {
        Endpoint where;
        try {
            where = Endpoint.parse(endpoint != null ? endpoint : config.endpoint());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--endpoint': "
                    + e.getMessage());
        }
        try {
            dev.provbench.csi.FaultInjector.check(config);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid configuration: " + e.getMessage());
        }
        if (where instanceof Endpoint.Tcp tcp && !allowRemote && !ApiAccessOptions.loopback(tcp.host())) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--endpoint': " + tcp
                    + " listens beyond this machine and the CSI API has no authentication; use a loopback "
                    + "address or add --allow-remote");
        }
        return where;
    }

    /** Serves until SIGTERM/SIGINT (or another stop), then exits 0: stopped as asked. */
    static int untilStopped() {
        Signals.onStop(sig -> Quarkus.asyncExit(ExitCodes.OK));
        Quarkus.waitForExit();
        return ExitCodes.OK;
    }
}
