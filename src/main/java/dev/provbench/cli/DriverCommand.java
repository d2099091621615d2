package dev.provbench.cli;

import dev.provbench.csi.CsiServer;
import dev.provbench.csi.DriverConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

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

    @Mixin
    DriverEndpoint driver;

    private final CsiServer server;
    private final DriverConfig config;

    public DriverCommand(CsiServer server, DriverConfig config) {
        this.server = server;
        this.config = config;
    }

    @Override
    public Integer call() {
        return driver.serveUntilStopped(spec, server, config, () -> { });
    }
}
