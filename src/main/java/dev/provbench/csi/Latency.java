package dev.provbench.csi;

import dev.provbench.util.Durations;

import java.time.Duration;
import java.util.random.RandomGenerator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A latency distribution to inject before a CSI method runs. */
public sealed interface Latency {

    /**
     * The longest delay an injected latency may ask for (every duration in it) and the longest one drawn (an
     * exponential or normal tail is cut here): a CSI call held longer than a minute tests nothing the client's
     * own deadline does not, and a bound keeps the delays' arithmetic from overflowing.
     */
    Duration MAX = Duration.ofSeconds(60);

    /** Draws one delay in nanoseconds (never negative). */
    long sampleNanos(RandomGenerator random);

    /** The form {@link #parse(String)} reads back. */
    String spec();

    record Fixed(Duration delay) implements Latency {
        public long sampleNanos(RandomGenerator random) {
            return delay.toNanos();
        }

        public String spec() {
            return Durations.format(delay);
        }
    }

    record Uniform(Duration min, Duration max) implements Latency {
        public long sampleNanos(RandomGenerator random) {
            long lo = min.toNanos();
            long hi = max.toNanos();
            return lo == hi ? lo : random.nextLong(lo, hi + 1);
        }

        public String spec() {
            return "uniform(" + Durations.format(min) + "," + Durations.format(max) + ")";
        }
    }

    record Exponential(Duration mean) implements Latency {
        public long sampleNanos(RandomGenerator random) {
            return Math.round(random.nextExponential() * mean.toNanos());
        }

        public String spec() {
            return "exp(" + Durations.format(mean) + ")";
        }
    }

    /** Normal, truncated at zero. */
    record Normal(Duration mean, Duration stddev) implements Latency {
        public long sampleNanos(RandomGenerator random) {
            return Math.max(0, Math.round(random.nextGaussian(mean.toNanos(), stddev.toNanos())));
        }

        public String spec() {
            return "normal(" + Durations.format(mean) + "," + Durations.format(stddev) + ")";
        }
    }

    Pattern FUNCTION = Pattern.compile("^\\s*(fixed|uniform|exp|exponential|normal)\\s*\\(([^)]*)\\)\\s*$");

    static Latency parse(String text) {
        Latency l;
        try {
            l = parseUnchecked(text);
        } catch (ArithmeticException e) { // a duration past what a long holds
            throw new IllegalArgumentException(e.getMessage());
        }
        if (l instanceof Fixed f) {
            capped(text, f.delay());
        } else if (l instanceof Uniform u) {
            capped(text, u.max());
        } else if (l instanceof Exponential e) {
            capped(text, e.mean());
        } else if (l instanceof Normal n) {
            capped(text, n.mean());
            capped(text, n.stddev());
        }
        return l;
    }

    private static void capped(String text, Duration d) {
        if (d.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("'" + text + "': injected latencies are at most " + MAX.toSeconds()
                    + "s");
        }
    }

    /** A delay drawn from {@code latency}, never above {@link #MAX}. */
    static long drawNanos(Latency latency, RandomGenerator random) {
        return Math.max(0, Math.min(MAX.toNanos(), latency.sampleNanos(random)));
    }

    private static Latency parseUnchecked(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("latency is empty");
        }
        Matcher m = FUNCTION.matcher(text);
        if (!m.matches()) {
            return new Fixed(Durations.parse(text));
        }
        String[] args = m.group(2).split(",");
        for (int i = 0; i < args.length; i++) {
            args[i] = args[i].trim();
        }
        String fn = m.group(1);
        int want = switch (fn) {
            case "uniform", "normal" -> 2;
            default -> 1;
        };
        if (args.length != want || args[0].isEmpty()) {
            throw new IllegalArgumentException("'" + text + "': " + fn + " takes " + want + " duration"
                    + (want == 1 ? "" : "s"));
        }
        return switch (fn) {
            case "fixed" -> new Fixed(Durations.parse(args[0]));
            case "exp", "exponential" -> new Exponential(Durations.parse(args[0]));
            case "uniform" -> {
                Duration lo = Durations.parse(args[0]);
                Duration hi = Durations.parse(args[1]);
                if (hi.compareTo(lo) < 0) {
                    throw new IllegalArgumentException("'" + text + "': the maximum is below the minimum");
                }
                yield new Uniform(lo, hi);
            }
            default -> new Normal(Durations.parse(args[0]), Durations.parse(args[1]));
        };
    }
}
