package dev.provbench.cli;

import dev.provbench.api.ApiAccess;
import dev.provbench.csi.CsiServer;
import dev.provbench.csi.DriverConfig;
import dev.provbench.run.RunLauncher;
import org.eclipse.microprofile.config.ConfigProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * {@code provbench serve}: the mock CSI driver plus the REST API for load runs and the live page; with
 * {@code --no-driver} the REST API and page only (the in-cluster layout: the driver is its own Deployment).
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve the mock CSI driver and, over HTTP, the REST API for load runs (/api/runs, OpenAPI "
                + "at /q/openapi) and a live page at /, until stopped.",
                "Every /api/ and /driver/ call needs 'Authorization: Bearer <token>': PROVBENCH_API_TOKEN, else a "
                        + "token generated at start, shown once in the log with a ready URL and written to a file "
                        + "(--no-auth turns this off, on a loopback address only). HTTP listens on "
                        + "QUARKUS_HTTP_HOST:QUARKUS_HTTP_PORT (default 127.0.0.1:8080); driver settings as for "
                        + "'driver'."})
public class ServeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    DriverEndpoint driver;

    @Mixin
    ApiAccessOptions auth;

    @picocli.CommandLine.Option(names = "--no-driver", description = "Serve only the REST API and the live page: "
            + "the mock driver runs in another process ('provbench driver', as in kubernetes/), whose counts runs "
            + "read from PROVBENCH_DRIVER_URL (required with this option). --endpoint does not apply.")
    boolean noDriver;

    private final CsiServer server;
    private final DriverConfig config;
    private final RunLauncher launcher;
    private final ApiAccess access;

    public ServeCommand(CsiServer server, DriverConfig config, RunLauncher launcher, ApiAccess access) {
        this.server = server;
        this.config = config;
        this.launcher = launcher;
        this.access = access;
    }

    @Override
    public Integer call() {
        if (noDriver) {
            String url = System.getenv("PROVBENCH_DRIVER_URL");
            if (url == null || url.isBlank()) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--no-driver needs "
                        + "PROVBENCH_DRIVER_URL: the HTTP address of the 'provbench driver' that runs will read");
            }
            if (driver.endpoint != null) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "--endpoint does not apply with --no-driver (no CSI socket is served here)");
            }
            auth.apply(spec, access);
            server.servedElsewhere(url);
            started();
            return DriverEndpoint.untilStopped();
        }
        auth.apply(spec, access);
        return driver.serveUntilStopped(spec, server, config, this::started);
    }

    private void started() {
        launcher.enable();
        int port = ConfigProvider.getConfig().getOptionalValue("quarkus.http.port", Integer.class).orElse(8080);
        org.jboss.logging.Logger.getLogger(ServeCommand.class).infof("REST API on port %d: POST /api/runs, "
                + "live page at /, OpenAPI at /q/openapi%s", port, noDriver
                ? "; the driver runs elsewhere: " + System.getenv("PROVBENCH_DRIVER_URL") : "");
    }
}
