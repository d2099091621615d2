package dev.provbench.util;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Go-style durations: "250ms", "1.5s", "5m", "1h30m", "0". */
public final class Durations {
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    private Durations() {
    }

    public static Duration parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("duration is missing");
        }
        String s = text.trim();
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = PART.matcher(s);
        long nanos = 0;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                break;
            }
            double value = Double.parseDouble(m.group(1));
            double unit = switch (m.group(2)) {
                case "ns" -> 1;
                case "us", "µs" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
            };
            double part = value * unit;
            if (part >= Long.MAX_VALUE) {
                throw new ArithmeticException("'" + text + "' is too long (more than 292 years)");
            }
            nanos = Math.addExact(nanos, Math.round(part));
            end = m.end();
        }
        if (end != s.length() || end == 0) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (examples: 250ms, 1.5s, 5m, 1h30m)");
        }
        return Duration.ofNanos(nanos);
    }

    /** Compact Go-like rendering used in reports and messages. */
    public static String format(Duration d) {
        long nanos = d.toNanos();
        if (nanos == 0) {
            return "0s";
        }
        if (nanos % 3_600_000_000_000L == 0) {
            return nanos / 3_600_000_000_000L + "h";
        }
        if (nanos % 60_000_000_000L == 0) {
            return nanos / 60_000_000_000L + "m";
        }
        if (nanos % 1_000_000_000L == 0) {
            return nanos / 1_000_000_000L + "s";
        }
        if (nanos % 1_000_000L == 0) {
            return nanos / 1_000_000L + "ms";
        }
        if (nanos % 1_000L == 0) {
            return nanos / 1_000L + "us";
        }
        return nanos + "ns";
    }
}
