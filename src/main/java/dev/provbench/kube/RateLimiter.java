package dev.provbench.kube;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A client-side rate limiter with client-go's semantics ({@code flowcontrol.NewTokenBucketRateLimiter}, i.e.
 * golang.org/x/time/rate): the bucket starts full at {@code burst}, refills continuously at {@code qps} tokens
 * per second, never holds more than {@code burst}, and every request attempt takes one token. A request that
 * finds no token reserves one anyway (the bucket goes into debt) and waits until it would have been refilled,
 * so waiters are served in order and the long-run rate is exactly {@code qps}.
 *
 * <p>Backed by Bucket4j: a greedy-refill bandwidth with nanosecond precision, and
 * {@code consumeIgnoringRateLimits}, which is x/time/rate's reservation.
 */
public final class RateLimiter {

    /** How a waiting request waits; tests substitute one that advances a fake clock. */
    public interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;
    }

    public static final Sleeper PARK = nanos -> {
        long deadline = System.nanoTime() + nanos;
        long left = nanos;
        while (left > 0) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            left = deadline - System.nanoTime();
        }
    };

    /** client-go's rest.DefaultQPS and rest.DefaultBurst. */
    public static final double DEFAULT_QPS = 5;
    public static final int DEFAULT_BURST = 10;

    private final double qps;
    private final int burst;
    private final Bucket bucket; // null: unlimited
    private final Sleeper sleeper;

    private RateLimiter(double qps, int burst, Bucket bucket, Sleeper sleeper) {
        this.qps = qps;
        this.burst = burst;
        this.bucket = bucket;
        this.sleeper = sleeper;
    }

    /**
     * As client-go's rest.Config: {@code qps == 0} means the default 5, {@code burst == 0} the default 10, a
     * negative qps means no limiter at all.
     */
    public static RateLimiter of(double qps, int burst) {
        return of(qps, burst, TimeMeter.SYSTEM_NANOTIME, PARK);
    }

    public static RateLimiter of(double qps, int burst, TimeMeter clock, Sleeper sleeper) {
        if (Double.isNaN(qps) || Double.isInfinite(qps)) {
            throw new IllegalArgumentException("qps must be a finite number");
        }
        if (qps < 0) {
            return new RateLimiter(qps, burst, null, sleeper);
        }
        double q = qps == 0 ? DEFAULT_QPS : qps;
        int b = burst == 0 ? DEFAULT_BURST : burst;
        if (b < 0) {
            throw new IllegalArgumentException("burst must not be negative");
        }
        // A full bucket of `b` tokens refills in b/q seconds: greedy refill spreads it continuously.
        long periodNanos = Math.round(b * 1e9 / q);
        if (periodNanos <= 0) {
            throw new IllegalArgumentException("qps " + qps + " is too high for burst " + b);
        }
        Bucket bucket = Bucket.builder()
                .withCustomTimePrecision(clock)
                .addLimit(limit -> limit.capacity(b).refillGreedy(b, Duration.ofNanos(periodNanos)).initialTokens(b))
                .build();
        return new RateLimiter(q, b, bucket, sleeper);
    }

    public boolean enabled() {
        return bucket != null;
    }

    public double qps() {
        return qps;
    }

    public int burst() {
        return burst;
    }

    /** Takes one token, waiting as long as needed; returns the nanoseconds waited. */
    public long acquire() throws InterruptedException {
        long wait = reserve();
        if (wait > 0) {
            try {
                sleeper.sleepNanos(wait);
            } catch (InterruptedException e) {
                // a waiter that gives up (an aborted run) hands its token back, as client-go's Wait cancels its
                // reservation: otherwise thousands of interrupted waiters leave debt that later requests —
                // the cleanup's — must wait out
                bucket.addTokens(1);
                throw e;
            }
        }
        return wait;
    }

    /**
     * Takes one token without waiting (the bucket may go into debt, so later requests wait for it);
     * returns the nanoseconds this request would have had to wait.
     */
    public long reserve() {
        return bucket == null ? 0 : bucket.consumeIgnoringRateLimits(1);
    }

    /** Tokens available now (negative while in debt); for tests and diagnostics. */
    public long availableTokens() {
        return bucket == null ? Long.MAX_VALUE : bucket.getAvailableTokens();
    }

    @Override
    public String toString() {
        return bucket == null ? "unlimited" : "qps=" + qps + " burst=" + burst;
    }
}
