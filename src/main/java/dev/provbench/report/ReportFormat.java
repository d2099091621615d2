package dev.provbench.report;

/** One way of writing a {@link RunReport}; each is listed in {@link Format}. */
public interface ReportFormat {
    String render(RunReport report);
}
