package dev.provbench.api;

import dev.provbench.run.RunLauncher;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.util.Map;
import java.util.Optional;

/**
 * Every {@code /api/} and {@code /driver/} call — reads included: they carry paths, URLs and messages — needs
 * {@code Authorization: Bearer <token>} ({@link ApiAccess}) unless the process runs with {@code --no-auth}.
 * Open: the live page's static files, {@code /q/health} and {@code /q/metrics}, and in a process that starts no
 * runs ({@code provbench driver}) the read-only {@code GET /driver/stats}, for probes and scraping.
 */
public class TokenFilter {
    private final ApiAccess access;
    private final RunLauncher launcher;

    public TokenFilter(ApiAccess access, RunLauncher launcher) {
        this.access = access;
        this.launcher = launcher;
    }

    @ServerRequestFilter
    public Optional<Response> check(ContainerRequestContext ctx) {
        String path = ctx.getUriInfo().getPath();
        if (!access.required() || !path.startsWith("/api/") && !path.startsWith("/driver/")) {
            return Optional.empty();
        }
        if (!launcher.enabled() && path.equals("/driver/stats")
                && ("GET".equals(ctx.getMethod()) || "HEAD".equals(ctx.getMethod()))) {
            return Optional.empty();
        }
        String header = ctx.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (access.accepts(header)) {
            return Optional.empty();
        }
        return Optional.of(Response.status(401).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"provbench\"")
                .type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", (header == null ? "this call needs the header '" + ApiAccess.HEADER + "'"
                        : "the bearer token is not right; send '" + ApiAccess.HEADER + "'")
                        + " (the token: PROVBENCH_API_TOKEN, or the one provbench serve/driver printed at start)"))
                .build());
    }
}
