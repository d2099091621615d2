package dev.provbench.util;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Events counted per interval of a fixed grid: interval {@code i} covers
 * {@code [origin + i·step, origin + (i+1)·step)} in {@link System#nanoTime()} terms. The grid has a fixed
 * number of intervals; events past its end land in the last one. Lock-free; one {@code long} per interval.
 */
public final class IntervalCounts {
    private final long originNanos;
    private final long stepNanos;
    private final AtomicLongArray counts;

    public IntervalCounts(long originNanos, long stepNanos, int intervals) {
        if (stepNanos <= 0 || intervals < 1) {
            throw new IllegalArgumentException("step and intervals must be positive");
        }
        this.originNanos = originNanos;
        this.stepNanos = stepNanos;
        this.counts = new AtomicLongArray(intervals);
    }

    public void add(long atNanos) {
        add(atNanos, 1);
    }

    public void add(long atNanos, long n) {
        long i = Math.floorDiv(atNanos - originNanos, stepNanos);
        counts.addAndGet((int) Math.min(Math.max(i, 0), counts.length() - 1), n);
    }

    public long get(int interval) {
        return interval < counts.length() ? counts.get(interval) : 0;
    }
}
