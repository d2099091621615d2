package dev.provbench.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provbench.csi.CsiMethods;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The mock driver's counts read from its /driver/stats endpoint (a driver in another process). */
public final class DriverStatsHttp implements DriverCounts {
    private final URI stats;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    public DriverStatsHttp(URI base) {
        String b = base.toString();
        this.stats = URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + "/driver/stats");
    }

    @Override
    public Counts read() throws Exception {
        HttpResponse<String> rsp = http.send(HttpRequest.newBuilder(stats).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (rsp.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + rsp.statusCode() + " from " + stats);
        }
        JsonNode root = JSON.readTree(rsp.body());
        JsonNode calls = root.path("calls");
        return new Counts(root.path("volumesCreated").asLong(0), root.path("volumesDeleted").asLong(0),
                calls.path(CsiMethods.CREATE_VOLUME).path("OK").asLong(0),
                calls.path(CsiMethods.DELETE_VOLUME).path("OK").asLong(0));
    }

    @Override
    public String source() {
        return stats.toString();
    }
}
