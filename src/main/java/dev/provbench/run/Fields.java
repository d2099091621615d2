package dev.provbench.run;

import dev.provbench.run.RunRequest.Invalid;
import dev.provbench.util.Durations;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How one field of a {@link RunRequest} is read and bounded: a duration, a QPS/burst pair, a file to read or to
 * write, an http(s) URL, a {@code NAME=PID} list, a DNS subdomain. Each throws {@link Invalid} naming the field.
 */
final class Fields {
    private Fields() {
    }

    static Invalid bad(String field, String message) {
        return new Invalid(field, message);
    }

    static Duration duration(String field, String value, boolean zeroAllowed, Duration max) {
        if (value == null) {
            throw bad(field, "is required");
        }
        Duration d;
        try {
            d = Durations.parse(value);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw bad(field, e.getMessage());
        }
        if (d.isNegative() || d.isZero() && !zeroAllowed) {
            throw bad(field, zeroAllowed ? "must not be negative" : "must be greater than 0");
        }
        if (d.compareTo(max) > 0) {
            throw bad(field, "must be at most " + Durations.format(max));
        }
        return d;
    }

    static void rate(String qpsField, double q, String burstField, int b, RunLimits.Values limits) {
        if (Double.isNaN(q) || Double.isInfinite(q)) {
            throw bad(qpsField, "must be a number");
        }
        if (q > limits.qps()) {
            throw bad(qpsField, "must be at most " + limits.qps());
        }
        if (b < 0) {
            throw bad(burstField, "must not be negative");
        }
        if (b > limits.burst()) {
            throw bad(burstField, "must be at most " + limits.burst());
        }
        if (q > 0 && b == 0) {
            throw bad(burstField, "must be at least 1 when " + qpsField + " is positive");
        }
    }

    static Path readable(String field, String value) {
        if (value == null) {
            return null;
        }
        Path p = Path.of(value);
        if (!Files.isReadable(p) || Files.isDirectory(p)) {
            throw bad(field, value + " is not a readable file");
        }
        return p;
    }

    /** A file this process may create or replace: its directory exists; not a directory itself. */
    static Path writable(String field, String value) {
        if (value == null) {
            return null;
        }
        Path p = Path.of(value).toAbsolutePath();
        if (Files.isDirectory(p)) {
            throw bad(field, value + " is a directory");
        }
        Path parent = p.getParent();
        if (parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent)) {
            throw bad(field, "directory " + parent + " does not exist or is not writable");
        }
        return p;
    }

    static URI httpUrl(String field, String value) {
        if (value == null) {
            return null;
        }
        try {
            URI u = new URI(value);
            if (u.getScheme() == null || !u.getScheme().matches("https?") || u.getHost() == null) {
                throw bad(field, "'" + value + "' is not an http(s) URL");
            }
            return u;
        } catch (URISyntaxException e) {
            throw bad(field, "'" + value + "' is not an http(s) URL");
        }
    }

    static Map<String, Long> processes(String value) {
        Map<String, Long> out = new LinkedHashMap<>();
        if (value == null || value.isBlank()) {
            return out;
        }
        String[] parts = value.split(",");
        if (parts.length > 64) {
            throw bad("processes", "names more than 64 processes");
        }
        for (String part : parts) {
            String[] kv = part.trim().split("=", 2);
            if (kv.length != 2 || !kv[0].matches("[A-Za-z0-9][-A-Za-z0-9_.]{0,62}") || !kv[1].matches("[0-9]{1,9}")) {
                throw bad("processes", "'" + part.trim() + "' is not NAME=PID");
            }
            out.put(kv[0], Long.parseLong(kv[1]));
        }
        return out;
    }

    static boolean dnsSubdomain(String name) {
        return name.length() <= 253
                && name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    }
}
