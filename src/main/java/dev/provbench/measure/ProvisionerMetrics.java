package dev.provbench.measure;

import dev.provbench.evidence.CounterTrack;
import dev.provbench.evidence.MetricsScrape;
import dev.provbench.load.RunWindow;
import dev.provbench.report.Rows;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code provisioner.metrics}: csi-provisioner's {@code csi_sidecar_operations} counts by method and code over
 * the window, scraped from its metrics endpoint once a second through the run and at the window's edges; the
 * increase is {@link CounterTrack}'s, so a csi-provisioner that restarted (its counters drop, its
 * {@code process_start_time_seconds} changes) is summed over its segments and flagged with {@code metricsResets}.
 */
public final class ProvisionerMetrics implements Measurement {

    /**
     * {@code provisioner.metrics} and where they came from; {@code metricsNote} says why there are none.
     *
     * @param metricsResets restarts of csi-provisioner seen in the window (its metrics sum the segments), or null
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Metrics(Map<String, Double> metrics, String metricsSource, Integer metricsResets,
                          String metricsNote) {
    }

    public static final SectionKind<Metrics> METRICS = SectionKind.of("provisioner", Metrics.class).scope(Scope.PROVISIONER).rows(m -> {
        List<Row> rows = new ArrayList<>();
        if (m.metrics() != null) {
            String reset = m.metricsResets() == null ? "" : " (RESET " + m.metricsResets() + "x, segments summed)";
            m.metrics().forEach((k, v) -> rows.add(new Row("provisioner", k, Rows.num(v) + reset)));
        }
        if (m.metricsNote() != null) {
            rows.add(new Row("provisioner", "metrics note", m.metricsNote()));
        }
        return rows;
    });
    private final MetricsScrape scrape;
    private final CounterTrack track = new CounterTrack();
    private long from = -1;
    private long to = -1;

    public ProvisionerMetrics(MetricsScrape scrape) {
        this.scrape = scrape;
    }

    /** One read, stamped when it starts (returned); reads never overlap, as in {@link DriverCalls}. */
    private synchronized long read() {
        long nanos = System.nanoTime();
        MetricsScrape.Operations o = scrape.operationsAndStart();
        if (o != null) {
            track.add(nanos, o.counts(), o.startTime());
        }
        return nanos;
    }

    @Override
    public void sample(long nanos) {
        read();
    }

    @Override
    public void windowStart(RunWindow w) {
        from = read(); // if this read fails, the last one before it stands for the edge
    }

    @Override
    public void windowEnd(RunWindow w) {
        to = read();
    }

    @Override
    public void report(ReportDraft d) {
        CounterTrack.Increase inc = from < 0 || to < 0 ? null : track.increase(from, to);
        if (inc == null) {
            d.put(METRICS, new Metrics(null, scrape.source(), null, "metrics scrape of " + scrape.source()
                    + " failed at a window edge"));
            return;
        }
        d.put(METRICS, new Metrics(inc.values(), scrape.source(), inc.resets() == 0 ? null : inc.resets(), null));
        if (inc.resets() > 0) {
            d.warn("csi-provisioner restarted " + inc.resets() + " time(s) in the window: provisioner.metrics sum "
                    + "the segments (as Prometheus' increase()) and miss what it counted between its last scrape "
                    + "and each restart");
        }
    }
}
