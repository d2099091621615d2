package dev.provbench.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.time.Duration;

/**
 * The mock driver's counts read from its /driver/stats endpoint (a driver in another process). A
 * {@code provbench driver} serves it openly; a {@code provbench serve} wants the API token, which is sent when
 * this process has one configured (the same PROVBENCH_API_TOKEN).
 */
public final class DriverStatsHttp implements DriverCounts {
    private final URI stats;
    private final java.util.Optional<String> token;
    private final HttpGet http;
    private static final ObjectMapper JSON = new ObjectMapper();

    public DriverStatsHttp(HttpGet http, URI base, java.util.Optional<String> token) {
        this.http = http;
        this.token = token.map(String::trim).filter(t -> !t.isEmpty());
        String b = base.toString();
        this.stats = URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + "/driver/stats");
    }

    /** The stats answer is a few hundred bytes; more is not a provbench driver. */
    static final int MAX_BYTES = 1 << 20;

    @Override
    public Read read() throws Exception {
        byte[] body = http.read(stats, token, Duration.ofSeconds(3), MAX_BYTES, null);
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (java.io.IOException e) {
            // the parser's message quotes the body: name the source, not what it sent
            throw new IllegalStateException("the answer of " + stats + " is not JSON");
        }
        java.util.Map<String, java.util.Map<String, Long>> calls = new java.util.TreeMap<>();
        root.path("calls").fields().forEachRemaining(m -> m.getValue().fields().forEachRemaining(
                c -> calls.computeIfAbsent(m.getKey(), k -> new java.util.TreeMap<>()).put(c.getKey(),
                        c.getValue().asLong(0))));
        java.util.Map<String, Long> injected = new java.util.TreeMap<>();
        root.path("injectedFaults").fields().forEachRemaining(f -> injected.put(f.getKey(), f.getValue().asLong(0)));
        return DriverCounts.of(root.path("volumesCreated").asLong(0), root.path("volumesDeleted").asLong(0), calls,
                injected, root.path("startTime").asDouble(Double.NaN))
                .withName(root.path("name").isTextual() ? root.path("name").asText() : null);
    }

    @Override
    public String source() {
        return stats.toString();
    }
}
