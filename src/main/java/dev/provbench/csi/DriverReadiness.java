package dev.provbench.csi;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import jakarta.enterprise.context.ApplicationScoped;

/** Ready only while the CSI socket is served (or, for {@code serve --no-driver}, always: none is). */
@Readiness
@ApplicationScoped
public class DriverReadiness implements HealthCheck {
    private final CsiServer server;

    public DriverReadiness(CsiServer server) {
        this.server = server;
    }

    @Override
    public HealthCheckResponse call() {
        String elsewhere = server.elsewhere();
        if (elsewhere != null) {
            return HealthCheckResponse.named("csi-driver").up().withData("endpoint", "none: the driver runs in "
                    + elsewhere + " (serve --no-driver)").build();
        }
        Endpoint e = server.endpoint();
        return HealthCheckResponse.named("csi-driver")
                .status(server.isServing())
                .withData("endpoint", e == null ? "none" : e.toString())
                .build();
    }
}
