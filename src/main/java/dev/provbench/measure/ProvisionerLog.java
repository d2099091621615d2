package dev.provbench.measure;

import dev.provbench.evidence.ThrottlingLines;
import dev.provbench.load.RunWindow;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Metric;
import dev.provbench.report.SectionKind.Row;
import dev.provbench.report.SectionKind.Unit;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.io.StringReader;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code provisioner.throttlingLines} (and {@code throttling.provisioner.logLines}, beside the bucket estimate):
 * csi-provisioner's client-side throttling log lines whose timestamp falls in the window, from a log file or from
 * pod logs (read once, after the run). client-go logs a wait over 50 ms only at {@code -v=3} and over 1 s through
 * a rate-limited logger, so the count is a lower bound.
 */
public final class ProvisionerLog implements Measurement {

    /** {@code provisioner}: the lines, where they were read, and why they could not be (else null). */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Log(Long throttlingLines, String logSource, String note) {
    }

    /** {@code throttling.provisioner.logLines}. */
    public record LogLines(long logLines) {
    }

    public static final SectionKind<Log> LOG = SectionKind.of("provisioner", Log.class).scope(Scope.PROVISIONER).rows(l -> {
        List<Row> rows = new ArrayList<>();
        if (l.throttlingLines() != null) {
            rows.add(new Row("provisioner", "throttling log lines", l.throttlingLines() + " (" + l.logSource() + ")"));
        }
        if (l.note() != null) {
            rows.add(new Row("provisioner", "note", l.note()));
        }
        return rows;
    }).metrics(List.of(Unit.lower("provisioner-throttling-lines")), l -> l.throttlingLines() == null ? List.of()
            : List.of(Metric.count("provisioner-throttling-lines", l.throttlingLines())));

    public static final SectionKind<LogLines> LOG_LINES = SectionKind.of("throttling.provisioner", LogLines.class)
            .scope(Scope.PROVISIONER_BUCKET)
            .rows(l -> List.of(new Row("throttling", "csi-provisioner (its log, a lower bound)", l.logLines()
                    + " throttling lines")));
    private final Path file;
    private final KubernetesClient client;
    private final String podNamespace;
    private final String podSelector;
    private final String container;
    private Long lines;
    private String source;
    private String note;

    /** From a file ({@code client} etc. null) or from the pods {@code podNamespace}/{@code podSelector}. */
    public ProvisionerLog(Path file, KubernetesClient client, String podNamespace, String podSelector,
            String container) {
        this.file = file;
        this.client = client;
        this.podNamespace = podNamespace;
        this.podSelector = podSelector;
        this.container = container;
    }

    /** Where the log file stood before the run's first request: it is read from there on. */
    private dev.provbench.evidence.LogMark mark;

    @Override
    public void idle() {
        if (file != null) {
            mark = dev.provbench.evidence.LogMark.of(file);
        }
    }

    @Override
    public void finish(RunWindow w) {
        try {
            if (file != null) {
                var opened = dev.provbench.evidence.LogMark.open(file, mark);
                try (var r = opened.reader()) {
                    lines = ThrottlingLines.count(r, w.start(), w.end(), ZoneId.systemDefault());
                }
                source = file + (opened.rewound() ? " (replaced or truncated during the run: read from its start)"
                        : "");
                return;
            }
            long n = 0;
            List<String> pods = new ArrayList<>();
            for (Pod p : client.pods().inNamespace(podNamespace).withLabelSelector(podSelector).list().getItems()) {
                String text = client.pods().inNamespace(podNamespace).withName(p.getMetadata().getName())
                        .inContainer(container).usingTimestamps()
                        .sinceTime(w.start().minusSeconds(1).toString()).getLog();
                n += ThrottlingLines.count(new StringReader(text), w.start(), w.end(), ZoneId.of("UTC"));
                pods.add(p.getMetadata().getName());
            }
            if (pods.isEmpty()) {
                note = "no pod matches " + podNamespace + "/" + podSelector;
            } else {
                lines = n;
                source = "pods " + String.join(", ", pods) + " container " + container;
            }
        } catch (Exception e) {
            note = "cannot read the provisioner's log " + (file != null ? file : "") + ": "
                    + e.getClass().getSimpleName();
        }
    }

    @Override
    public void report(ReportDraft d) {
        if (lines != null || note != null) {
            d.put(LOG, new Log(lines, source, note));
        }
        if (lines != null) {
            d.put(LOG_LINES, new LogLines(lines));
        }
    }
}
