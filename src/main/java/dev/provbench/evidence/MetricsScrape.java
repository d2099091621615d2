package dev.provbench.evidence;

import org.jboss.logging.Logger;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a Prometheus text endpoint (csi-provisioner's {@code --http-endpoint}, the driver's {@code /q/metrics}):
 * the {@code csi_sidecar_operations_seconds} counts by method and code, and the standard process metrics.
 */
public final class MetricsScrape {
    private static final Logger LOG = Logger.getLogger(MetricsScrape.class);
    /** Bodies larger than this are refused (a metrics page is tens of KiB). */
    static final int MAX_BYTES = 8 << 20;
    private final URI url;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** The standard process metrics at one instant; {@code startTimeSeconds} NaN when not exported. */
    public record Process(double cpuSeconds, double rssBytes, double startTimeSeconds) {
    }

    public MetricsScrape(URI url) {
        this.url = url;
    }

    public String source() {
        return url.toString();
    }

    String body() throws Exception {
        HttpResponse<String> rsp = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(3)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (rsp.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + rsp.statusCode());
        }
        if (rsp.body().length() > MAX_BYTES) {
            throw new IllegalStateException("more than " + MAX_BYTES + " bytes");
        }
        return rsp.body();
    }

    /** csi_sidecar_operations counts and the process start time (NaN if not exported) from one scrape. */
    public record Operations(Map<String, Double> counts, double startTime) {
    }

    /** One scrape of both; null if it failed. */
    public Operations operationsAndStart() {
        try {
            String text = body();
            Process p = process(text);
            return new Operations(operations(text), p == null ? Double.NaN : p.startTimeSeconds());
        } catch (Exception e) {
            LOG.debugf("cannot scrape %s: %s", url, e.getMessage());
            return null;
        }
    }

    /** The process metrics; null if the scrape failed or they are not exported. */
    public Process process() {
        try {
            return process(body());
        } catch (Exception e) {
            LOG.debugf("cannot scrape %s: %s", url, e.getMessage());
            return null;
        }
    }

    static Map<String, Double> operations(String text) {
        Map<String, Double> out = new TreeMap<>();
        forEachSample(text, (series, value) -> {
            if (series.startsWith("csi_sidecar_operations_seconds_count")) {
                String method = label(series, "method_name");
                String code = label(series, "grpc_status_code");
                out.merge("csi_sidecar_operations " + method.replaceAll(".*/", "") + " " + code, value, Double::sum);
            }
        });
        return out;
    }

    static Process process(String text) {
        double[] v = {Double.NaN, Double.NaN, Double.NaN};
        forEachSample(text, (series, value) -> {
            switch (series) {
                case "process_cpu_seconds_total" -> v[0] = value;
                case "process_resident_memory_bytes" -> v[1] = value;
                case "process_start_time_seconds" -> v[2] = value;
                default -> {
                }
            }
        });
        return Double.isNaN(v[0]) || Double.isNaN(v[1]) ? null : new Process(v[0], v[1], v[2]);
    }

    private interface SampleConsumer {
        void accept(String series, double value);
    }

    private static void forEachSample(String text, SampleConsumer c) {
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            if (sp <= 0) {
                continue;
            }
            try {
                c.accept(line.substring(0, sp).trim(), Double.parseDouble(line.substring(sp + 1).trim()));
            } catch (NumberFormatException e) {
                // not a sample line
            }
        }
    }

    static String label(String series, String name) {
        int i = series.indexOf(name + "=\"");
        if (i < 0) {
            return "";
        }
        int from = i + name.length() + 2;
        return series.substring(from, series.indexOf('"', from));
    }
}
