package dev.provbench.evidence;

import dev.provbench.load.WindowProbe;
import org.jboss.logging.Logger;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Scrapes a Prometheus text endpoint (csi-provisioner's --http-endpoint) at the window's start and end and keeps
 * the differences of the series that matter: csi_sidecar_operations_seconds counts by method and code, and the
 * process's CPU seconds; plus its resident memory at the end.
 */
public final class MetricsScrape implements WindowProbe {
    private static final Logger LOG = Logger.getLogger(MetricsScrape.class);
    private final URI url;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Map<String, Double> before;
    private Map<String, Double> after;

    public MetricsScrape(URI url) {
        this.url = url;
    }

    public String source() {
        return url.toString();
    }

    Map<String, Double> scrape() {
        try {
            HttpResponse<String> rsp = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (rsp.statusCode() != 200) {
                throw new IllegalStateException("HTTP " + rsp.statusCode());
            }
            return parse(rsp.body());
        } catch (Exception e) {
            LOG.warnf("cannot scrape %s: %s", url, e.getMessage());
            return null;
        }
    }

    /** The series we keep, by a readable name. */
    static Map<String, Double> parse(String text) {
        Map<String, Double> out = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            String series = line.substring(0, sp).trim();
            double value;
            try {
                value = Double.parseDouble(line.substring(sp + 1).trim());
            } catch (NumberFormatException e) {
                continue;
            }
            if (series.startsWith("csi_sidecar_operations_seconds_count")) {
                String method = label(series, "method_name");
                String code = label(series, "grpc_status_code");
                out.merge("csi_sidecar_operations " + method.replaceAll(".*/", "") + " " + code, value, Double::sum);
            } else if (series.equals("process_cpu_seconds_total") || series.equals("process_resident_memory_bytes")) {
                out.put(series, value);
            }
        }
        return out;
    }

    static String label(String series, String name) {
        int i = series.indexOf(name + "=\"");
        if (i < 0) {
            return "";
        }
        int from = i + name.length() + 2;
        return series.substring(from, series.indexOf('"', from));
    }

    @Override
    public void windowStart() {
        before = scrape();
    }

    @Override
    public void windowEnd() {
        after = scrape();
    }

    /** Deltas over the window (resident memory: the value at the end); null if a scrape failed. */
    public Map<String, Double> deltas() {
        if (before == null || after == null) {
            return null;
        }
        Map<String, Double> out = new TreeMap<>();
        after.forEach((k, v) -> out.put(k.equals("process_cpu_seconds_total") ? "process_cpu_seconds (window)" : k,
                k.equals("process_resident_memory_bytes") ? v : v - before.getOrDefault(k, 0.0)));
        return out;
    }
}
