package dev.provbench.util;

import io.fabric8.kubernetes.api.model.Quantity;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Byte sizes as Kubernetes writes them, parsed by fabric8's {@link Quantity} — the same parser the load
 * driver's {@code --size} goes through — and limited to whole, non-negative numbers of bytes.
 */
public final class Quantities {
    private Quantities() {
    }

    public static long bytes(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("byte size is missing");
        }
        BigDecimal b;
        try {
            b = Quantity.getAmountInBytes(new Quantity(text.trim()));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a Kubernetes quantity (examples: 1048576, 1Gi, "
                    + "500M)");
        }
        if (b.signum() < 0 || b.stripTrailingZeros().scale() > 0) {
            throw new IllegalArgumentException("'" + text + "' is not a whole, non-negative number of bytes");
        }
        try {
            return b.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
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

    /** SmallRye Config converter, so config values can be written as "1Gi"; "unlimited" is 0. */
    public static final class Converter implements org.eclipse.microprofile.config.spi.Converter<Long> {
        @Override
        public Long convert(String value) {
            return bytes(value.toLowerCase(Locale.ROOT).equals("unlimited") ? "0" : value);
        }
    }
}
