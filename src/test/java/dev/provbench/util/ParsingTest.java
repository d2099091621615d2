package dev.provbench.util;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ParsingTest {
    @Test
    void byteSizes() {
        assertEquals(1024, Quantities.bytes("1024"));
        assertEquals(1L << 30, Quantities.bytes("1Gi"));
        assertEquals(5L << 40, Quantities.bytes("5Ti"));
        assertEquals(500_000_000L, Quantities.bytes("500M"));
        assertEquals(2_000L, Quantities.bytes("2k"));
        assertEquals("1Gi", Quantities.format(1L << 30));
        assertEquals("1536Mi", Quantities.format(1536L << 20));
        assertEquals("1000", Quantities.format(1000));
        assertThrows(IllegalArgumentException.class, () -> Quantities.bytes("1 GB"));
        assertThrows(IllegalArgumentException.class, () -> Quantities.bytes("-1"));
        assertThrows(IllegalArgumentException.class, () -> Quantities.bytes("500m")); // milli: not whole bytes
        assertThrows(IllegalArgumentException.class, () -> Quantities.bytes("9999999Ei"));
        assertEquals(1536L << 20, Quantities.bytes("1.5Gi")); // as --size and Kubernetes read it
        assertThrows(IllegalArgumentException.class, () -> Quantities.bytes("99999999Pi"));
    }

    @Test
    void durations() {
        assertEquals(Duration.ofMillis(250), Durations.parse("250ms"));
        assertEquals(Duration.ofMillis(1500), Durations.parse("1.5s"));
        assertEquals(Duration.ofMinutes(90), Durations.parse("1h30m"));
        assertEquals(Duration.ofNanos(3000), Durations.parse("3us"));
        assertEquals(Duration.ZERO, Durations.parse("0"));
        assertEquals("5m", Durations.format(Duration.ofMinutes(5)));
        assertEquals("250ms", Durations.format(Duration.ofMillis(250)));
        for (String bad : new String[]{"", "5", "ms", "5x", "5m junk", "-1s"}) {
            assertThrows(IllegalArgumentException.class, () -> Durations.parse(bad), bad);
        }
    }
}
