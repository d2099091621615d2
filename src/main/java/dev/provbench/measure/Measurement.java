package dev.provbench.measure;

import dev.provbench.load.RunWindow;

/**
 * One thing a run measures, and its section of the report (kube-burner's {@code pkg/measurements} shape:
 * one file per measurement, built by {@code run.Measurements} from the checked request). The run drives the
 * life cycle below, always in this order and from one thread, except {@link #sample} which a timer calls
 * once a second from the run start to the end of the drain. Each measurement owns its window scope and its
 * denominators; rates go through {@link RunWindow#rate}.
 */
public interface Measurement {
    /** Before the run's first request: an idle sample, where the measurement has one. */
    default void idle() throws InterruptedException {
    }

    /**
     * The workers are about to start; {@code w} has the run start only. The time series is a grid of
     * {@code intervals} steps of {@code stepNanos} from {@code w.runStartNanos()}.
     */
    default void runStart(RunWindow w, long stepNanos, int intervals) {
    }

    /** Once a second, in every phase. */
    default void sample(long nanos) {
    }

    default void windowStart(RunWindow w) {
    }

    default void windowEnd(RunWindow w) {
    }

    /** After the drain and the cleanup; {@code w} is the final window. */
    default void finish(RunWindow w) {
    }

    /**
     * Puts this measurement's sections into the report ({@link ReportDraft#put}, of the kinds it declares in
     * {@code run.Measurements}' registry line). Called after {@link #finish}, in registry order.
     */
    void report(ReportDraft draft);
}
