package dev.provbench.measure;

import dev.provbench.evidence.ThrottlingLines;
import dev.provbench.load.RunWindow;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code provisioner.throttlingLines}: csi-provisioner's client-side throttling log lines whose timestamp
 * falls in the window, from a log file or from pod logs (read once, after the run).
 */
public final class ProvisionerLog implements Measurement {
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

    @Override
    public void finish(RunWindow w) {
        try {
            if (file != null) {
                lines = ThrottlingLines.count(Files.newBufferedReader(file), w.start(), w.end(), ZoneId.systemDefault());
                source = file.toString();
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
        if (lines != null) {
            d.throttlingLines(lines, source);
        }
        if (note != null) {
            d.provisionerNote(note);
        }
    }
}
