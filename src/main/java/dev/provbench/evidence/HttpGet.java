package dev.provbench.evidence;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The evidence sources' HTTP reads (the driver's stats and calls, the metrics pages of the driver and
 * csi-provisioner): one client for all of a run's sources, HTTP/1.1 with kept-alive connections, answers bounded
 * in size and never echoed in an error. One client instead of one per source: each JDK client has its own
 * selector thread and worker pool, and by default asks every plain-HTTP server to upgrade to HTTP/2 (h2c), which
 * the driver's server accepts — the JDK's HTTP/2 costs more per request than its HTTP/1.1 (docs/benchmarks.md,
 * issue 27).
 */
public final class HttpGet {
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * GETs {@code url} with the bearer {@code token} if present. An answer other than 200 is an error that names
     * the URL and the status ({@code on401} added for a 401), and so is a body longer than {@code maxBytes}.
     */
    public byte[] read(URI url, Optional<String> token, Duration timeout, int maxBytes, String on401)
            throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(url).timeout(timeout);
        token.ifPresent(t -> req.header("Authorization", "Bearer " + t));
        HttpResponse<InputStream> rsp = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
        byte[] body;
        try (InputStream in = rsp.body()) {
            body = in.readNBytes(maxBytes + 1);
        } catch (IOException e) {
            throw new IOException("reading the answer of " + url + ": " + e.getClass().getSimpleName());
        }
        if (rsp.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + rsp.statusCode() + " from " + url
                    + (rsp.statusCode() == 401 && on401 != null ? " (" + on401 + ")" : ""));
        }
        if (body.length > maxBytes) {
            throw new IllegalStateException("the answer of " + url + " is longer than " + maxBytes + " bytes");
        }
        return body;
    }
}
