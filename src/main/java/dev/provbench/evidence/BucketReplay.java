package dev.provbench.evidence;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Was a client bound by its token bucket? Replays a client-go token bucket ({@code qps}, {@code burst}: refills
 * continuously, starts full) over the times kube-apiserver <em>received</em> that client's requests (its audit
 * log). A request finding less than one token plus the refill of {@link #SLACK} is taken as sent at the
 * bucket's limit — it had waited for its token; the bucket is <em>bound</em> while it holds less than one token
 * (a request issued then would wait). Errors: receipt is later than sending by the network and the server's
 * read (sub-millisecond on one machine, {@link #SLACK} allowed), so a request sent just as a token arrived may
 * count either way; requests the client never sent because it was waiting are invisible, so the shares are
 * lower bounds when the client queues many requests at once (each waiting request is still received at the
 * bucket's pace and counted).
 */
public final class BucketReplay {
    /** Timing slack between the client's send and the server's receipt. */
    public static final Duration SLACK = Duration.ofMillis(5);

    /**
     * @param requests   requests received in the window
     * @param atLimit    of which sent at the bucket's limit
     * @param boundShare share of the window during which the bucket held less than one token
     */
    public record Result(long requests, long atLimit, double boundShare) {
    }

    private BucketReplay() {
    }

    /**
     * @param received receipt times of one client's requests, sorted, from before the window (the replay starts
     *                 full at the first) to its end
     */
    public static Result replay(List<Instant> received, double qps, int burst, Instant windowStart, Instant windowEnd) {
        if (qps <= 0 || burst < 1 || received.isEmpty()) {
            return new Result(0, 0, 0);
        }
        double slack = qps * SLACK.toNanos() / 1e9;
        double tokens = burst;
        long ws = nanos(windowStart);
        long we = nanos(windowEnd);
        long last = nanos(received.get(0));
        long requests = 0;
        long atLimit = 0;
        double boundNanos = 0;
        for (Instant i : received) {
            long t = nanos(i);
            boundNanos += emptyWithin(tokens, qps, last, t, ws, we);
            tokens = Math.min(burst, tokens + qps * (t - last) / 1e9);
            boolean inWindow = t >= ws && t <= we;
            if (inWindow) {
                requests++;
            }
            if (tokens < 1 + slack) {
                if (inWindow) {
                    atLimit++;
                }
                tokens = Math.max(0, tokens - 1);
            } else {
                tokens -= 1;
            }
            last = t;
        }
        boundNanos += emptyWithin(tokens, qps, last, Math.max(last, we), ws, we);
        double window = we - ws;
        return new Result(requests, atLimit, window > 0 ? Math.min(1, boundNanos / window) : 0);
    }

    /** Nanoseconds of [from, to] ∩ [ws, we] during which a bucket holding {@code tokens} at from has under one. */
    private static double emptyWithin(double tokens, double qps, long from, long to, long ws, long we) {
        if (tokens >= 1 || to <= from) {
            return 0;
        }
        long refilled = from + (long) ((1 - tokens) / qps * 1e9);
        long a = Math.max(from, ws);
        long b = Math.min(Math.min(to, refilled), we);
        return Math.max(0, b - a);
    }

    private static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
