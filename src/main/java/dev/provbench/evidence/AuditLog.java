package dev.provbench.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
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

    /** One component's requests. */
    public record Counts(long[] total, Map<String, Long> byVerb, Map<String, Long> byVerbResource,
                         Map<String, Long> byCode) {
        Counts() {
            this(new long[1], new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
        }

        public long requests() {
            return total[0];
        }
    }

    /** Requests by component received in [start, end]. */
    public static Map<String, Counts> byComponent(Path log, Instant start, Instant end) throws IOException {
        Map<String, Counts> counts = new TreeMap<>();
        try (BufferedReader r = Files.newBufferedReader(log)) {
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
                if (at.isBefore(start) || at.isAfter(end)) {
                    continue;
                }
                String resource = e.path("objectRef").path("resource").asText("");
                if (resource.isEmpty()) {
                    resource = "nonresource:" + e.path("requestURI").asText().replaceAll("\\?.*", "");
                } else if (!e.path("objectRef").path("subresource").asText("").isEmpty()) {
                    resource += "/" + e.path("objectRef").path("subresource").asText();
                }
                String verb = e.path("verb").asText();
                Counts c = counts.computeIfAbsent(component(e.path("user").path("username").asText()),
                        k -> new Counts());
                c.total[0]++;
                c.byVerb.merge(verb, 1L, Long::sum);
                c.byVerbResource.merge(verb + " " + resource, 1L, Long::sum);
                c.byCode.merge(e.path("responseStatus").path("code").asText("?"), 1L, Long::sum);
            }
        }
        return counts;
    }
}
