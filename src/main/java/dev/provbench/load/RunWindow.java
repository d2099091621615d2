package dev.provbench.load;

import java.time.Instant;

/**
 * The time line of one run, in {@link System#nanoTime()} terms with the wall-clock instant of the run start:
 * the run starts (workers start), warm-up lasts until the <em>window</em> opens, the window closes, then the
 * drain and the cleanup follow. Every count in the report covers {@code [windowStart, windowEnd]} unless its
 * name says otherwise, and every rate in the report is {@link #rate(double)}: a count in the window divided
 * by the window's length. This is the only place a rate is computed.
 *
 * @param warmupCapped the warm-up reached {@code --warmup-max} before its condition held
 */
public record RunWindow(Instant runStart, long runStartNanos, long windowStartNanos, long windowEndNanos,
                        boolean warmupCapped) {

    public double warmupSeconds() {
        return (windowStartNanos - runStartNanos) / 1e9;
    }

    public double seconds() {
        return (windowEndNanos - windowStartNanos) / 1e9;
    }

    public Instant start() {
        return at(windowStartNanos);
    }

    public Instant end() {
        return at(windowEndNanos);
    }

    /** The wall-clock instant of a {@link System#nanoTime()} reading taken during the run. */
    public Instant at(long nanos) {
        return runStart.plusNanos(nanos - runStartNanos);
    }

    /** {@code count} per second of the window; 0 for an empty window. */
    public double rate(double count) {
        return rate(count, windowStartNanos, windowEndNanos);
    }

    /** The one rate helper: {@code count} per second of {@code [fromNanos, toNanos]}; 0 if that is empty. */
    public static double rate(double count, long fromNanos, long toNanos) {
        long len = toNanos - fromNanos;
        return len <= 0 ? 0 : count * 1e9 / len;
    }

    public boolean opened() {
        return windowStartNanos != Long.MAX_VALUE;
    }

    public boolean closed() {
        return windowEndNanos != Long.MAX_VALUE;
    }
}
