package dev.provbench.cli;

import dev.provbench.api.ApiAccess;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;

/**
 * {@code --no-auth} and showing the API token: shared by {@code serve} and {@code driver}. By default the
 * HTTP API needs a bearer token — PROVBENCH_API_TOKEN, or one generated at start, shown once in the log with
 * a ready URL and written to a file readable by this user only. {@code --no-auth} turns that off and is only
 * accepted while the HTTP server listens on a loopback address.
 */
public class ApiAccessOptions {
    private static final Logger LOG = Logger.getLogger(ApiAccessOptions.class);

    @Option(names = "--no-auth", description = "Serve the HTTP API without a token. Only on a loopback address "
            + "(QUARKUS_HTTP_HOST, default 127.0.0.1).")
    boolean noAuth;

    /** The check of {@link #apply} that needs no bean: before Quarkus starts ({@link Main}). */
    void checkEarly(CommandSpec spec) {
        String host = System.getProperty("quarkus.http.host", System.getenv().getOrDefault("QUARKUS_HTTP_HOST",
                "127.0.0.1"));
        refuseOffLoopback(spec, host);
    }

    private void refuseOffLoopback(CommandSpec spec, String host) {
        if (noAuth && !loopback(host)) {
            throw new ParameterException(spec.commandLine(), "--no-auth is only accepted on a loopback address, "
                    + "but the HTTP server listens on " + host + " (QUARKUS_HTTP_HOST); unset it or set 127.0.0.1");
        }
    }

    /** Applies the choice before anything is served; a --no-auth on a non-loopback address is exit code 2. */
    void apply(CommandSpec spec, ApiAccess access) {
        var config = ConfigProvider.getConfig();
        apply(spec, access, config.getOptionalValue("quarkus.http.host", String.class).orElse("0.0.0.0"),
                config.getOptionalValue("quarkus.http.port", Integer.class).orElse(8080));
    }

    void apply(CommandSpec spec, ApiAccess access, String host, int port) {
        var config = ConfigProvider.getConfig();
        if (noAuth) {
            refuseOffLoopback(spec, host);
            access.open();
            LOG.warnf("HTTP API on %s:%d without authentication (--no-auth)", host, port);
            return;
        }
        if (!access.generated()) {
            LOG.infof("HTTP API on %s:%d: calls need '%s' with PROVBENCH_API_TOKEN", host, port, ApiAccess.HEADER);
            return;
        }
        Path file = Path.of(config.getOptionalValue("provbench.api.token-file", String.class)
                .orElse(Path.of(System.getProperty("java.io.tmpdir"), "provbench-api-token-"
                        + ProcessHandle.current().pid()).toString()));
        String where;
        try {
            where = "written to " + access.writeTo(file);
        } catch (IOException | RuntimeException e) {
            where = "not written to " + file + " (" + e.getClass().getSimpleName() + ")";
        }
        String shown = loopback(host) || "0.0.0.0".equals(host) || "::".equals(host) ? "127.0.0.1" : host;
        LOG.infof("HTTP API on %s:%d needs '%s'. No PROVBENCH_API_TOKEN was set, so a token was generated "
                + "(%s); open %s", host, port, ApiAccess.HEADER, where, access.url(shown, port));
    }

    static boolean loopback(String host) {
        try {
            return "localhost".equals(host) || InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException | SecurityException e) {
            return false;
        }
    }
}
