package dev.provbench.report;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The report formats, by name. Add a format by writing a {@link ReportFormat} and listing it here. */
public enum Format {
    TABLE(TableFormat::new), JSON(JsonFormat::new), MARKDOWN(MarkdownFormat::new), BENCH(BenchFormat::new),
    HTML(HtmlFormat::new);

    /** Built on first use: naming a format (a command line's parse, its help) loads no renderer (nor Jackson). */
    private final java.util.function.Supplier<ReportFormat> factory;
    private volatile ReportFormat impl;

    Format(java.util.function.Supplier<ReportFormat> factory) {
        this.factory = factory;
    }

    public String render(RunReport r) {
        ReportFormat f = impl;
        if (f == null) {
            impl = f = factory.get();
        }
        return f.render(r);
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
