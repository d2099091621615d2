package dev.provbench.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.RunReport;

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

    private static final class Counts {
        long total;
        final Map<String, Long> byVerb = new TreeMap<>();
        final Map<String, Long> byVerbResource = new TreeMap<>();
        final Map<String, Long> byCode = new TreeMap<>();
    }

    /** Requests by component in [start, end]; {@code ops} = creates + deletes completed in the window. */
    public static Map<String, RunReport.Requests> byComponent(Path log, Instant start, Instant end, long ops)
            throws IOException {
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
                c.total++;
                c.byVerb.merge(verb, 1L, Long::sum);
                c.byVerbResource.merge(verb + " " + resource, 1L, Long::sum);
                c.byCode.merge(e.path("responseStatus").path("code").asText("?"), 1L, Long::sum);
            }
        }
        Map<String, RunReport.Requests> out = new TreeMap<>();
        counts.forEach((k, c) -> out.put(k, new RunReport.Requests(c.total, c.byVerb, c.byVerbResource, c.byCode,
                ops == 0 ? null : ReportBuilder.round(c.total / (double) ops))));
        return out;
    }
}
