package dev.provbench.report;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The report formats, by name. Add a format by writing a {@link ReportFormat} and listing it here. */
public enum Format {
    TABLE(new TableFormat()), JSON(new JsonFormat()), MARKDOWN(new MarkdownFormat()), BENCH(new BenchFormat()),
    HTML(new HtmlFormat());

    private final ReportFormat impl;

    Format(ReportFormat impl) {
        this.impl = impl;
    }

    public String render(RunReport r) {
        return impl.render(r);
    }

    /** The name users type: {@code table}, {@code json}, … */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Format> byName(String name) {
        return Arrays.stream(values()).filter(f -> f.toString().equals(name)).findFirst();
    }

    public static List<String> names() {
        return Arrays.stream(values()).map(Format::toString).toList();
    }
}
