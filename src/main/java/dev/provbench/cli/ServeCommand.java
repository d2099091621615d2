package dev.provbench.cli;

import dev.provbench.csi.CsiServer;
import dev.provbench.csi.DriverConfig;
import dev.provbench.csi.Endpoint;
import dev.provbench.run.RunLauncher;
import io.quarkus.runtime.Quarkus;
import org.eclipse.microprofile.config.ConfigProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.util.concurrent.Callable;

/** {@code provbench serve}: the mock CSI driver plus the REST API for load runs and the live page. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve the mock CSI driver and, over HTTP, the REST API for load runs (/api/runs, OpenAPI "
                + "at /q/openapi) and a live page at /, until stopped.",
                "Set PROVBENCH_API_TOKEN to require 'Authorization: Bearer <token>' on calls that change something. "
                        + "HTTP listens on QUARKUS_HTTP_PORT (default 8080); driver settings as for 'driver'."})
public class ServeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--endpoint", paramLabel = "ENDPOINT",
            description = "CSI endpoint: unix:///path/csi.sock, a bare path, or tcp://host:port for debugging. "
                    + "Default: $CSI_ENDPOINT, else unix:///csi/csi.sock.")
    String endpoint;

    private final CsiServer server;
    private final DriverConfig config;
    private final RunLauncher launcher;

    public ServeCommand(CsiServer server, DriverConfig config, RunLauncher launcher) {
        this.server = server;
        this.config = config;
        this.launcher = launcher;
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
            spec.commandLine().getErr().println("provbench serve: " + e.getMessage());
            return ExitCodes.FAILED;
        }
        launcher.enable();
        int port = ConfigProvider.getConfig().getOptionalValue("quarkus.http.port", Integer.class).orElse(8080);
        org.jboss.logging.Logger.getLogger(ServeCommand.class).infof("REST API on port %d: POST /api/runs, "
                + "live page at /, OpenAPI at /q/openapi", port);
        Quarkus.waitForExit();
        return ExitCodes.OK;
    }
}
