package dev.provbench.report;

/** One way of writing a {@link RunReport}. Add a format by adding an implementation to {@link Formats}. */
public interface ReportFormat {
    String name();

    String render(RunReport report);
}
