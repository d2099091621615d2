package dev.provbench.measure;

import dev.provbench.evidence.MetricsScrape;
import dev.provbench.load.RunWindow;

import java.util.Map;

/**
 * {@code provisioner.metrics}: csi-provisioner's {@code csi_sidecar_operations} counts by method and code over
 * the window, scraped from its metrics endpoint at the window's edges.
 */
public final class ProvisionerMetrics implements Measurement {
    private final MetricsScrape scrape;
    private Map<String, Double> atStart;
    private Map<String, Double> atEnd;

    public ProvisionerMetrics(MetricsScrape scrape) {
        this.scrape = scrape;
    }

    @Override
    public void windowStart(RunWindow w) {
        atStart = scrape.operations();
    }

    @Override
    public void windowEnd(RunWindow w) {
        atEnd = scrape.operations();
    }

    @Override
    public void report(ReportDraft d) {
        if (atStart == null || atEnd == null) {
            d.provisionerNote("metrics scrape of " + scrape.source() + " failed");
            return;
        }
        d.provisionerMetrics(MetricsScrape.increase(atStart, atEnd), scrape.source());
    }
}
