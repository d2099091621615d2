package dev.provbench.api;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * When {@code provbench.api.token} (PROVBENCH_API_TOKEN) is set, calls that change something — starting and
 * aborting runs, changing the driver's injection rules and limits — need {@code Authorization: Bearer <token>}.
 * Reads stay open, as /q/metrics and /q/health are.
 */
public class TokenFilter {
    private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");

    private final Optional<byte[]> token;

    public TokenFilter(@ConfigProperty(name = "provbench.api.token") Optional<String> token) {
        this.token = token.filter(t -> !t.isBlank()).map(t -> t.getBytes(StandardCharsets.UTF_8));
    }

    @ServerRequestFilter
    public Optional<Response> check(ContainerRequestContext ctx) {
        if (token.isEmpty() || READS.contains(ctx.getMethod())) {
            return Optional.empty();
        }
        String path = ctx.getUriInfo().getPath();
        if (!path.startsWith("/api/") && !path.startsWith("/driver/")) {
            return Optional.empty();
        }
        String header = ctx.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
                && MessageDigest.isEqual(token.get(), header.substring(7).trim().getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        return Optional.of(Response.status(401).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"provbench\"")
                .type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", header == null ? "this call needs Authorization: Bearer <token>"
                        : "the bearer token is not right")).build());
    }
}
