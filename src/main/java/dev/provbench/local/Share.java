package dev.provbench.local;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A fraction of occasions, spread evenly and deterministically: with {@code share} 0.4, {@link #next()} is
 * true on 2 of every 5 calls. Lets a stand-in send a measured average number of requests per cycle.
 */
final class Share {
    private final double share;
    private final AtomicLong calls = new AtomicLong();

    Share(double share) {
        if (share < 0 || share > 1) {
            throw new IllegalArgumentException("a share is between 0 and 1");
        }
        this.share = share;
    }

    boolean next() {
        long n = calls.getAndIncrement();
        return Math.floor((n + 1) * share) > Math.floor(n * share);
    }
}
