package dev.provbench.evidence;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts client-go's client-side throttling lines in a klog log, inside a time window. All client-go variants:
 * {@code "Waited before sending request" … reason="client-side throttling…"} (≥ 0.33),
 * {@code Waited for … due to client-side throttling} (0.21–0.32) and {@code Throttling request took} (≤ 0.20).
 */
public final class ThrottlingLines {
    static final Pattern THROTTLING = Pattern.compile(
            "Waited before sending request.*client-side throttling|Waited for .* due to client-side throttling"
                    + "|Throttling request took");
    /** klog header: Lmmdd hh:mm:ss.uuuuuu */
    static final Pattern KLOG = Pattern.compile("^[IWEF](\\d{2})(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2})\\.(\\d{1,9})");
    /** RFC 3339 timestamp at line start (kubectl logs --timestamps, or JSON-ish logs). */
    static final Pattern RFC3339 = Pattern.compile("^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z)");

    private ThrottlingLines() {
    }

    public static boolean isThrottling(String line) {
        return THROTTLING.matcher(line).find();
    }

    /**
     * Lines that report throttling with a timestamp in [start, end]. klog timestamps carry no year and are in the
     * process's local time zone ({@code zone}); the year is the window's.
     */
    public static long count(Reader log, Instant start, Instant end, ZoneId zone) throws IOException {
        long n = 0;
        int year = LocalDateTime.ofInstant(start, zone).getYear();
        try (BufferedReader r = new BufferedReader(log)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!isThrottling(line)) {
                    continue;
                }
                Instant at = timestamp(line, year, zone);
                if (at == null || !at.isBefore(start) && !at.isAfter(end)) {
                    n++;
                }
            }
        }
        return n;
    }

    static Instant timestamp(String line, int year, ZoneId zone) {
        Matcher m = RFC3339.matcher(line);
        if (m.find()) {
            return Instant.parse(m.group(1));
        }
        m = KLOG.matcher(line);
        if (m.find()) {
            String frac = (m.group(6) + "000000000").substring(0, 9);
            return LocalDateTime.of(year, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)),
                    Integer.parseInt(frac)).atZone(zone).toInstant();
        }
        return null;
    }
}
