package dev.provbench.measure;

import dev.provbench.evidence.CounterTrack;
import dev.provbench.load.RunWindow;
import dev.provbench.report.Rows;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Row;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code throttling.server}: kube-apiserver's API Priority and Fairness over the window, per priority level, from
 * its {@code /metrics} read through the run's own client (so counted and limited like every request of the tool)
 * at the window's edges: requests dispatched ({@code apiserver_flowcontrol_dispatched_requests_total}), rejected
 * (429s: {@code apiserver_flowcontrol_rejected_requests_total}, by reason), the mean time they waited in APF's
 * queues ({@code apiserver_flowcontrol_request_wait_duration_seconds} of executed requests, sum / count), and
 * the requests in queue at the window's end. Counter increases go through {@link CounterTrack} (a kube-apiserver
 * that restarted is summed over its segments and flagged). Reading {@code /metrics} needs RBAC
 * ({@code nonResourceURLs: ["/metrics"], verbs: ["get"]}); when it cannot be read the section says
 * {@code readable: false} and why. Which flow schema and priority level each client's requests fall in is
 * {@link FlowMatch}'s, from the audit log.
 */
public final class ServerThrottling implements Measurement {

    /** One API Priority and Fairness priority level over the window (kube-apiserver's /metrics). */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record PriorityLevel(long dispatched, long rejected, Map<String, Long> rejectedByReason,
                                Double waitMeanMs, Long inQueueAtEnd) {
    }

    /**
     * Server-side throttling ({@code throttling.server}; {@code clients} beside it is {@link AuditLogRequests}').
     *
     * @param readable false when kube-apiserver's /metrics could not be read ({@code reason} says why)
     * @param rejected 429s over every priority level
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Server(boolean readable, String reason, String source, Map<String, PriorityLevel> priorityLevels,
                         Long rejected, Integer resets) {
    }

    public static final SectionKind<Server> SERVER = SectionKind.of("throttling.server", Server.class).scope(Scope.SERVER).rows(sv -> {
        if (!sv.readable()) {
            return List.of(new Row("throttling", "server side (APF)", "not read: " + sv.reason()));
        }
        StringBuilder pl = new StringBuilder();
        sv.priorityLevels().forEach((k, v) -> {
            if (v.dispatched() > 0 || v.rejected() > 0) {
                pl.append(pl.length() == 0 ? "" : "; ").append(k).append(": ").append(v.dispatched())
                        .append(" dispatched, ").append(v.rejected()).append(" rejected")
                        .append(v.waitMeanMs() == null ? "" : ", queue wait mean " + Rows.num(v.waitMeanMs()) + " ms");
            }
        });
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("throttling", "server side (APF, " + sv.source() + ")", sv.rejected() + " rejected (429) — "
                + pl));
        return rows;
    });

    /** kube-apiserver's /metrics is a few MB; past this it is not read. */
    static final int MAX_BYTES = 32 << 20;
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})?\\s+(\\S+)");

    private final KubernetesClient client;
    private final CounterTrack track = new CounterTrack();
    private Map<String, Double> inQueueAtEnd;
    private long from = -1;
    private long to = -1;
    private String problem;

    public ServerThrottling(KubernetesClient client) {
        this.client = client;
    }

    private String source() {
        return client.getMasterUrl() + "metrics";
    }

    private String body() throws Exception {
        HttpClient http = client.getHttpClient();
        String base = client.getMasterUrl().toString();
        HttpRequest req = http.newHttpRequestBuilder().uri((base.endsWith("/") ? base : base + "/") + "metrics")
                .build();
        HttpResponse<InputStream> rsp = http.sendAsync(req, InputStream.class).get(10, TimeUnit.SECONDS);
        byte[] b;
        try (InputStream in = rsp.body()) {
            b = in.readNBytes(MAX_BYTES + 1);
        }
        if (rsp.code() != 200) {
            throw new IllegalStateException("HTTP " + rsp.code() + (rsp.code() == 403 ? " (this identity may not get "
                    + "the non-resource URL /metrics: see docs/load.md for the ClusterRole)" : ""));
        }
        if (b.length > MAX_BYTES) {
            throw new IllegalStateException("longer than " + MAX_BYTES + " bytes");
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    /** One read: counters into the track, the in-queue gauges returned; null when it failed. */
    private long read(boolean end) {
        long nanos = System.nanoTime();
        try {
            Map<String, Double> counters = new TreeMap<>();
            Map<String, Double> inQueue = new TreeMap<>();
            double[] start = {Double.NaN};
            for (String line : body().split("\n")) {
                if (line.isEmpty() || line.charAt(0) == '#') {
                    continue;
                }
                Matcher m = SAMPLE.matcher(line);
                if (!m.find()) {
                    continue;
                }
                String name = m.group(1);
                String labels = m.group(2) == null ? "" : m.group(2);
                double v;
                try {
                    v = Double.parseDouble(m.group(3));
                } catch (NumberFormatException e) {
                    continue;
                }
                String pl = label(labels, "priority_level");
                switch (name) {
                    case "apiserver_flowcontrol_dispatched_requests_total" -> counters.merge("dispatched\t" + pl, v,
                            Double::sum);
                    case "apiserver_flowcontrol_rejected_requests_total" -> counters.merge("rejected\t" + pl + "\t"
                            + label(labels, "reason"), v, Double::sum);
                    case "apiserver_flowcontrol_request_wait_duration_seconds_sum" -> {
                        if ("true".equals(label(labels, "execute"))) {
                            counters.merge("waitSum\t" + pl, v, Double::sum);
                        }
                    }
                    case "apiserver_flowcontrol_request_wait_duration_seconds_count" -> {
                        if ("true".equals(label(labels, "execute"))) {
                            counters.merge("waitCount\t" + pl, v, Double::sum);
                        }
                    }
                    case "apiserver_flowcontrol_current_inqueue_requests" -> inQueue.merge(pl, v, Double::sum);
                    case "process_start_time_seconds" -> start[0] = v;
                    default -> {
                    }
                }
            }
            track.add(nanos, counters, start[0]);
            if (end) {
                inQueueAtEnd = inQueue;
            }
            problem = null;
        } catch (Exception e) {
            problem = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
                    ? e.getCause().getClass().getSimpleName() : e.getMessage();
            return -1;
        }
        return nanos;
    }

    static String label(String labels, String name) {
        Matcher m = Pattern.compile("[{,]" + name + "=\"([^\"]*)\"").matcher(labels);
        return m.find() ? m.group(1) : "";
    }

    @Override
    public void windowStart(RunWindow w) {
        from = read(false);
    }

    @Override
    public void windowEnd(RunWindow w) {
        to = read(true);
    }

    @Override
    public void report(ReportDraft d) {
        if (from < 0 || to < 0) {
            d.put(SERVER, new Server(false, "kube-apiserver's " + source() + " could not be read at a window edge: "
                    + problem, source(), null, null, null));
            return;
        }
        CounterTrack.Increase inc = track.increase(from, to);
        Map<String, PriorityLevel> levels = new TreeMap<>();
        Map<String, long[]> counts = new TreeMap<>(); // dispatched, rejected
        Map<String, Map<String, Long>> byReason = new TreeMap<>();
        Map<String, double[]> waits = new TreeMap<>(); // sum, count
        inc.values().forEach((k, v) -> {
            String[] p = k.split("\t");
            switch (p[0]) {
                case "dispatched" -> counts.computeIfAbsent(p[1], x -> new long[2])[0] += Math.round(v);
                case "rejected" -> {
                    counts.computeIfAbsent(p[1], x -> new long[2])[1] += Math.round(v);
                    if (Math.round(v) > 0) {
                        byReason.computeIfAbsent(p[1], x -> new TreeMap<>()).merge(p[2], Math.round(v), Long::sum);
                    }
                }
                case "waitSum" -> waits.computeIfAbsent(p[1], x -> new double[2])[0] += v;
                case "waitCount" -> waits.computeIfAbsent(p[1], x -> new double[2])[1] += v;
                default -> {
                }
            }
        });
        long rejected = 0;
        for (Map.Entry<String, long[]> e : counts.entrySet()) {
            double[] wt = waits.get(e.getKey());
            Double mean = wt == null || wt[1] <= 0 ? null : dev.provbench.report.ReportBuilder.round(wt[0] / wt[1] * 1000);
            Double q = inQueueAtEnd == null ? null : inQueueAtEnd.get(e.getKey());
            levels.put(e.getKey(), new PriorityLevel(e.getValue()[0], e.getValue()[1],
                    byReason.get(e.getKey()), mean, q == null ? null : Math.round(q)));
            rejected += e.getValue()[1];
        }
        d.put(SERVER, new Server(true, null, source(), levels, rejected,
                inc.resets() == 0 ? null : inc.resets()));
        if (inc.resets() > 0) {
            d.warn("kube-apiserver restarted " + inc.resets() + " time(s) in the window: throttling.server sums its "
                    + "segments");
        }
        if (rejected > 0) {
            d.warn("kube-apiserver rejected " + rejected + " requests (HTTP 429, API Priority and Fairness) in the "
                    + "window: see throttling.server");
        }
    }
}
