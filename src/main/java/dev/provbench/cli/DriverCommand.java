package dev.provbench.cli;

import dev.provbench.api.ApiAccess;
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
                        + "(see docs/driver.md). HTTP (health, metrics, stats, control) listens on "
                        + "QUARKUS_HTTP_HOST:QUARKUS_HTTP_PORT (default 127.0.0.1:8080); the control API needs "
                        + "'Authorization: Bearer <token>' (PROVBENCH_API_TOKEN, else generated and shown at start) "
                        + "unless --no-auth."})
public class DriverCommand implements Callable<Integer>, Main.EarlyStarted {

    @Spec
    CommandSpec spec;

    @Mixin
    DriverEndpoint driver;

    @Mixin
    ApiAccessOptions auth;

    private final CsiServer server;
    private final DriverConfig config;
    private final ApiAccess access;

    public DriverCommand(CsiServer server, DriverConfig config, ApiAccess access) {
        this.server = server;
        this.config = config;
        this.access = access;
    }

    /**
     * Before Quarkus starts ({@link Main}): checks the flags and the configuration, and serves the CSI socket, so
     * csi-provisioner's first Probe does not wait for the HTTP side.
     */
    @Override
    public int startEarly() {
        DriverConfig early;
        try {
            early = dev.provbench.csi.EarlyDriver.config();
        } catch (RuntimeException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Invalid configuration: "
                    + e.getMessage());
        }
        auth.checkEarly(spec);
        dev.provbench.csi.Endpoint where = driver.check(spec, early); // a bad --endpoint: usage error, exit 2
        // Stopped while Quarkus still boots: still "stopped as asked" (exit 0, the README's promise), not the
        // JVM's 143/130; the shutdown hooks remove the socket. Installed before the socket exists, so no signal
        // finds the JVM's default; serveUntilStopped replaces it.
        Runnable restore = Signals.onStop(sig -> System.exit(dev.provbench.run.ExitCodes.OK));
        try {
            dev.provbench.csi.EarlyDriver.start(early, where);
            return 0;
        } catch (java.io.IOException | RuntimeException e) {
            restore.run();
            spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
            return dev.provbench.run.ExitCodes.FAILED;
        }
    }

    @Override
    public Integer call() {
        auth.apply(spec, access);
        // started and serving: the class loader's jars closed, as Quarkus does for a long-lived application (not
        // in serve, whose first run would open jars ~2,500 times more for the classes it loads: docs/benchmarks.md)
        return driver.serveUntilStopped(spec, server, config, dev.provbench.util.PostBoot::releaseClassLoaderCaches);
    }
}
