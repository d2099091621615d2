package dev.provbench.report;

import java.util.List;

/** One section of a report: its kind and its value. */
public record Section<T>(SectionKind<T> kind, T value) {
    public List<SectionKind.Row> rows() {
        return kind.rowsOf(value);
    }

    public List<SectionKind.Metric> metrics() {
        return kind.metricsOf(value);
    }

    String html(RunReport r) {
        return kind.htmlOf(value, r);
    }

    String headline() {
        return kind.headlineOf(value);
    }

    Long iterations() {
        return kind.iterationsOf(value);
    }
}
