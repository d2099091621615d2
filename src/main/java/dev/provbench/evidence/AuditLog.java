package dev.provbench.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * API calls per operation by component, from kube-apiserver's JSON audit log: every ResponseComplete event
 * received inside the window, grouped by user (mapped to a component name), verb and resource.
 */
public final class AuditLog {
    private static final ObjectMapper JSON = new ObjectMapper();

    private AuditLog() {
    }

    static String component(String user) {
        return switch (user) {
            case "system:kube-controller-manager" -> "kube-controller-manager";
            case "csi-provisioner", "system:serviceaccount:provbench:csi-provisioner" -> "csi-provisioner";
            case "provbench-load", "system:serviceaccount:provbench:provbench-load" -> "provbench (load driver)";
            default -> user.startsWith("system:serviceaccount:") && user.endsWith(":csi-provisioner")
                    ? "csi-provisioner" : user;
        };
    }

    /**
     * One component's requests; {@code own}: those whose object is one of the run's ({@link Own}), by verb and
     * resource.
     */
    public record Counts(long[] total, Map<String, Long> byVerb, Map<String, Long> byVerbResource,
                         Map<String, Long> byCode, long[] ownTotal, Map<String, Long> own) {
        Counts() {
            this(new long[1], new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new long[1], new TreeMap<>());
        }

        public long requests() {
            return total[0];
        }

        /** Requests naming one of the run's objects. */
        public long ownRequests() {
            return ownTotal[0];
        }
    }

    /** Which objects are the run's: a request's {@code objectRef} resource, namespace and name (name may be empty). */
    public interface Own {
        boolean test(String resource, String namespace, String name);
    }

    /** Requests by component received in [start, end]. */
    public static Map<String, Counts> byComponent(Path log, Instant start, Instant end) throws IOException {
        return read(log, null, start, start, end).counts();
    }

    /** At most this many of csi-provisioner's receipt times are kept (the bucket replay's input). */
    static final int MAX_TIMES = 2_000_000;

    /**
     * What the log says: {@code counts} by component in [start, end]; {@code provisioner}: when kube-apiserver
     * received each of csi-provisioner's requests from {@code since} to {@code end}, sorted; {@code flows}: per
     * component, the priority level and flow schema of its requests in the window where the log names them
     * (kube-apiserver's audit annotations), by count.
     */
    public record Read(Map<String, Counts> counts, List<Instant> provisioner,
                       Map<String, Map<Shape, Long>> shapes, long skippedBytes, boolean rewound) {
    }

    /** What API Priority and Fairness classifies a request by. {@code namespace} empty: cluster-scoped. */
    public record Shape(String user, List<String> groups, String verb, String apiGroup, String resource,
                        String namespace, String path) {
    }

    /** Distinct request shapes kept per component (a run's clients send a handful). */
    static final int MAX_SHAPES = 1000;

    /** As {@link #read(Path, LogMark, Instant, Instant, Instant)} from the log's beginning. */
    public static Read read(Path log, Instant since, Instant start, Instant end) throws IOException {
        return read(log, null, since, start, end);
    }

    /** @param from where the log stood before the run ({@link LogMark}): read from there on; null: all of it */
    public static Read read(Path log, LogMark from, Instant since, Instant start, Instant end) throws IOException {
        return read(log, from, since, start, end, null);
    }

    /** As above; {@code own} (null: none) tells the requests on the run's own objects apart. */
    public static Read read(Path log, LogMark from, Instant since, Instant start, Instant end, Own own)
            throws IOException {
        Map<String, Counts> counts = new TreeMap<>();
        List<Instant> provisioner = new ArrayList<>();
        Map<String, Map<Shape, Long>> shapes = new TreeMap<>();
        LogMark.Opened opened = LogMark.open(log, from);
        try (BufferedReader r = opened.reader()) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.contains("\"ResponseComplete\"")) {
                    continue;
                }
                JsonNode e = JSON.readTree(line);
                if (!"ResponseComplete".equals(e.path("stage").asText())) {
                    continue;
                }
                Instant at = Instant.parse(e.path("requestReceivedTimestamp").asText());
                if (at.isBefore(since) || at.isAfter(end)) {
                    continue;
                }
                String component = component(e.path("user").path("username").asText());
                if (component.equals("csi-provisioner") && provisioner.size() < MAX_TIMES) {
                    provisioner.add(at);
                }
                if (at.isBefore(start)) {
                    continue;
                }
                JsonNode ref = e.path("objectRef");
                List<String> groups = new ArrayList<>();
                e.path("user").path("groups").forEach(g -> groups.add(g.asText()));
                String sub = ref.path("subresource").asText("");
                String res = ref.path("resource").asText("");
                Shape shape = new Shape(e.path("user").path("username").asText(), List.copyOf(groups),
                        e.path("verb").asText(), ref.path("apiGroup").asText(""),
                        res.isEmpty() ? "" : res + (sub.isEmpty() ? "" : "/" + sub), ref.path("namespace").asText(""),
                        res.isEmpty() ? e.path("requestURI").asText().replaceAll("\\?.*", "") : "");
                Map<Shape, Long> m = shapes.computeIfAbsent(component, k -> new java.util.HashMap<>());
                if (m.containsKey(shape) || m.size() < MAX_SHAPES) {
                    m.merge(shape, 1L, Long::sum);
                }
                String resource = e.path("objectRef").path("resource").asText("");
                if (resource.isEmpty()) {
                    resource = "nonresource:" + e.path("requestURI").asText().replaceAll("\\?.*", "");
                } else if (!e.path("objectRef").path("subresource").asText("").isEmpty()) {
                    resource += "/" + e.path("objectRef").path("subresource").asText();
                }
                String verb = e.path("verb").asText();
                Counts c = counts.computeIfAbsent(component, k -> new Counts());
                c.total[0]++;
                c.byVerb.merge(verb, 1L, Long::sum);
                c.byVerbResource.merge(verb + " " + resource, 1L, Long::sum);
                c.byCode.merge(e.path("responseStatus").path("code").asText("?"), 1L, Long::sum);
                if (own != null && own.test(res, ref.path("namespace").asText(""), ref.path("name").asText(""))) {
                    c.ownTotal[0]++;
                    c.own.merge(verb + " " + resource, 1L, Long::sum);
                }
            }
        }
        provisioner.sort(null);
        return new Read(counts, provisioner, shapes, opened.skipped(), opened.rewound());
    }
}
