package dev.provbench.util;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte quantities as Kubernetes writes them: plain bytes, binary suffixes (Ki, Mi, Gi, Ti, Pi) and
 * decimal suffixes (k, M, G, T, P).
 */
public final class ByteSize {
    private static final Pattern QUANTITY = Pattern.compile("^\\s*(\\d+)\\s*([kKMGTP]i?|B)?\\s*$");

    private ByteSize() {
    }

    public static long parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("byte size is missing");
        }
        Matcher m = QUANTITY.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a byte size (examples: 1048576, 1Gi, 500M)");
        }
        long value = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "" : m.group(2);
        long factor = switch (unit) {
            case "", "B" -> 1L;
            case "k", "K" -> 1_000L;
            case "M" -> 1_000_000L;
            case "G" -> 1_000_000_000L;
            case "T" -> 1_000_000_000_000L;
            case "P" -> 1_000_000_000_000_000L;
            case "Ki", "ki" -> 1L << 10;
            case "Mi" -> 1L << 20;
            case "Gi" -> 1L << 30;
            case "Ti" -> 1L << 40;
            case "Pi" -> 1L << 50;
            default -> throw new IllegalArgumentException("unknown unit '" + unit + "' in '" + text + "'");
        };
        return Math.multiplyExact(value, factor);
    }

    /** A short human form: the largest binary unit that divides the value exactly. */
    public static String format(long bytes) {
        String[] units = {"Pi", "Ti", "Gi", "Mi", "Ki"};
        int[] shifts = {50, 40, 30, 20, 10};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << shifts[i];
            if (bytes != 0 && bytes % unit == 0) {
                return (bytes / unit) + units[i];
            }
        }
        return Long.toString(bytes);
    }

    /** SmallRye Config converter, so config values can be written as "1Gi". */
    public static final class Converter implements org.eclipse.microprofile.config.spi.Converter<Long> {
        @Override
        public Long convert(String value) {
            return parse(value.toLowerCase(Locale.ROOT).equals("unlimited") ? "0" : value);
        }
    }
}
