package dev.provbench.report;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The registry of report formats, by name. */
public final class Formats {
    private static final Map<String, ReportFormat> ALL = new LinkedHashMap<>();

    static {
        for (ReportFormat f : new ReportFormat[]{new TableFormat(), new JsonFormat(), new MarkdownFormat(),
                new BenchFormat(), new HtmlFormat()}) {
            ALL.put(f.name(), f);
        }
    }

    private Formats() {
    }

    public static Optional<ReportFormat> byName(String name) {
        return Optional.ofNullable(ALL.get(name));
    }

    public static java.util.Set<String> names() {
        return ALL.keySet();
    }
}
