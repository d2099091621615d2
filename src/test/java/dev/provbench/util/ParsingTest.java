package dev.provbench.util;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ParsingTest {
    @Test
    void byteSizes() {
        assertEquals(1024, ByteSize.parse("1024"));
        assertEquals(1L << 30, ByteSize.parse("1Gi"));
        assertEquals(5L << 40, ByteSize.parse("5Ti"));
        assertEquals(500_000_000L, ByteSize.parse("500M"));
        assertEquals(2_000L, ByteSize.parse("2k"));
        assertEquals("1Gi", ByteSize.format(1L << 30));
        assertEquals("1536Mi", ByteSize.format(1536L << 20));
        assertEquals("1000", ByteSize.format(1000));
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("1 GB"));
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("-1"));
        assertThrows(ArithmeticException.class, () -> ByteSize.parse("99999999Pi"));
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
