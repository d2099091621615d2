package dev.provbench.evidence;

import org.jboss.logging.Logger;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Reads a Prometheus text endpoint (csi-provisioner's {@code --http-endpoint}, the driver's {@code /q/metrics}):
 * the {@code csi_sidecar_operations_seconds} counts by method and code, and the standard process metrics. Two
 * readers of one endpoint (csi-provisioner's operations and its process figures) share one instance: a scrape
 * taken less than {@link #SHARED_NANOS} ago answers both, so the once-a-second sampling and the window's edges
 * fetch and scan each page once, not once per reader.
 */
public final class MetricsScrape {
    private static final Logger LOG = Logger.getLogger(MetricsScrape.class);
    /** Bodies larger than this are refused (a metrics page is tens of KiB). */
    static final int MAX_BYTES = 8 << 20;
    /** Reads of one endpoint this close together are one scrape (the readers of one sample or one edge). */
    static final long SHARED_NANOS = 200_000_000L;
    private final URI url;
    private final HttpGet http;
    private final LongSupplier nanoTime;
    private Last last;

    private record Last(long nanos, String text) {
    }

    /** The standard process metrics at one instant; {@code startTimeSeconds} NaN when not exported. */
    public record Process(double cpuSeconds, double rssBytes, double startTimeSeconds) {
    }

    public MetricsScrape(HttpGet http, URI url) {
        this(http, url, System::nanoTime);
    }

    MetricsScrape(HttpGet http, URI url, LongSupplier nanoTime) {
        this.http = http;
        this.url = url;
        this.nanoTime = nanoTime;
    }

    public String source() {
        return url.toString();
    }

    synchronized String body() throws Exception {
        long now = nanoTime.getAsLong();
        if (last != null && now - last.nanos() < SHARED_NANOS) {
            return last.text();
        }
        String text = new String(http.read(url, Optional.empty(), Duration.ofSeconds(3), MAX_BYTES, null),
                StandardCharsets.UTF_8);
        last = new Last(now, text);
        return text;
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
        forEachSample(text, "csi_sidecar_operations_seconds_count", (series, value) -> {
            String method = label(series, "method_name");
            String code = label(series, "grpc_status_code");
            out.merge("csi_sidecar_operations " + method.substring(method.lastIndexOf('/') + 1) + " " + code, value,
                    Double::sum);
        });
        return out;
    }

    static Process process(String text) {
        double[] v = {Double.NaN, Double.NaN, Double.NaN};
        forEachSample(text, "process_", (series, value) -> {
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

    /** The samples whose series starts with {@code prefix}; the other lines are skipped unread. */
    private static void forEachSample(String text, String prefix, SampleConsumer c) {
        for (int from = 0; from < text.length(); ) {
            int nl = text.indexOf('\n', from);
            int end = nl < 0 ? text.length() : nl;
            if (text.startsWith(prefix, from)) {
                String line = text.substring(from, end);
                int sp = line.lastIndexOf(' ');
                if (sp > 0) {
                    try {
                        c.accept(line.substring(0, sp).trim(), Double.parseDouble(line.substring(sp + 1).trim()));
                    } catch (NumberFormatException e) {
                        // not a sample line
                    }
                }
            }
            from = end + 1;
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
