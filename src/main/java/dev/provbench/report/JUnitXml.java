package dev.provbench.report;

import java.net.InetAddress;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * JUnit XML for CI consumers (Jenkins, GitLab, GitHub test reporters): one {@code <testsuite>} with one
 * {@code <testcase>} per threshold or compared metric; a failed one carries a {@code <failure>} whose message
 * has the numbers, a run that could not be measured an {@code <error>}. The layout is the common JUnit schema's
 * (windyroad JUnit.xsd: properties, testcases, system-out, system-err; a timestamp without zone, in UTC), which
 * the tests validate against, together with Jenkins' junit-10.xsd.
 */
public final class JUnitXml {
    private JUnitXml() {
    }

    /**
     * @param failure null when it passed
     * @param error   the failure is an error: it could not be measured at all
     */
    public record Case(String classname, String name, double seconds, String failureType, String failure,
                       String detail, boolean error) {
        public static Case passed(String classname, String name, double seconds, String detail) {
            return new Case(classname, name, seconds, null, null, detail, false);
        }

        public static Case failed(String classname, String name, double seconds, String type, String message,
                                  String detail) {
            return new Case(classname, name, seconds, type, message, detail, false);
        }

        public static Case error(String classname, String name, double seconds, String type, String message) {
            return new Case(classname, name, seconds, type, message, null, true);
        }
    }

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /** Text as XML allows it: markup escaped, characters XML 1.0 cannot carry dropped. */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&apos;");
                default -> {
                    if (c == 0x9 || c == 0xA || c == 0xD || c >= 0x20 && c <= 0xD7FF || c >= 0xE000 && c <= 0xFFFD
                            || c >= 0x10000 && c <= 0x10FFFF) {
                        b.appendCodePoint(c);
                    }
                }
            }
        });
        return b.toString();
    }

    /** An xs:token without inner runs of spaces: what the schema allows in names. */
    static String token(String s) {
        String t = s == null ? "" : s.trim().replaceAll("\\s+", " ");
        return t.isEmpty() ? "-" : t;
    }

    static String hostname() {
        try {
            String h = InetAddress.getLocalHost().getHostName();
            return h == null || h.isBlank() || h.matches(".*\\s.*") ? "localhost" : h;
        } catch (Exception e) {
            return "localhost";
        }
    }

    private static String secs(double s) {
        return String.format(Locale.ROOT, "%.3f", Double.isFinite(s) && s >= 0 ? s : 0);
    }

    public static String suite(String name, Instant started, double seconds, Map<String, String> properties,
                               List<Case> cases, String systemOut) {
        long failures = cases.stream().filter(c -> c.failure() != null && !c.error()).count();
        long errors = cases.stream().filter(c -> c.failure() != null && c.error()).count();
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<testsuite name=\"").append(esc(token(name))).append("\" timestamp=\"")
                .append(STAMP.format(started)).append("\" hostname=\"").append(esc(hostname()))
                .append("\" tests=\"").append(cases.size()).append("\" failures=\"").append(failures)
                .append("\" errors=\"").append(errors).append("\" time=\"").append(secs(seconds)).append("\">\n");
        b.append("  <properties>\n");
        properties.forEach((k, v) -> b.append("    <property name=\"").append(esc(token(k))).append("\" value=\"")
                .append(esc(v)).append("\"/>\n"));
        b.append("  </properties>\n");
        for (Case c : cases) {
            b.append("  <testcase name=\"").append(esc(token(c.name()))).append("\" classname=\"")
                    .append(esc(token(c.classname()))).append("\" time=\"").append(secs(c.seconds())).append('"');
            if (c.failure() == null) {
                b.append("/>\n");
                continue;
            }
            String tag = c.error() ? "error" : "failure";
            b.append(">\n    <").append(tag).append(" message=\"").append(esc(c.failure())).append("\" type=\"")
                    .append(esc(c.failureType())).append("\">").append(esc(c.detail() == null ? c.failure() : c.detail()))
                    .append("</").append(tag).append(">\n  </testcase>\n");
        }
        b.append("  <system-out>").append(esc(systemOut)).append("</system-out>\n");
        b.append("  <system-err></system-err>\n");
        return b.append("</testsuite>\n").toString();
    }

    private static String num(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.6g", v);
    }
}
