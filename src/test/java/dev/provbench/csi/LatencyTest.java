package dev.provbench.csi;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LatencyTest {
    static double meanMs(Latency l, int n) {
        SplittableRandom r = new SplittableRandom(42);
        long sum = 0;
        for (int i = 0; i < n; i++) {
            long s = l.sampleNanos(r);
            assertTrue(s >= 0);
            sum += s;
        }
        return sum / (double) n / 1e6;
    }

    @Test
    void parsesEveryForm() {
        assertEquals(new Latency.Fixed(Duration.ofMillis(50)), Latency.parse("50ms"));
        assertEquals(new Latency.Fixed(Duration.ofMillis(50)), Latency.parse("fixed(50ms)"));
        assertEquals(new Latency.Uniform(Duration.ofMillis(10), Duration.ofMillis(100)),
                Latency.parse("uniform(10ms, 100ms)"));
        assertEquals(new Latency.Exponential(Duration.ofMillis(20)), Latency.parse("exp(20ms)"));
        assertEquals(new Latency.Normal(Duration.ofMillis(50), Duration.ofMillis(5)),
                Latency.parse("normal(50ms,5ms)"));
        for (String spec : new String[]{"50ms", "uniform(10ms,100ms)", "exp(20ms)", "normal(50ms,5ms)"}) {
            assertEquals(Latency.parse(spec), Latency.parse(Latency.parse(spec).spec()), spec);
        }
        for (String bad : new String[]{"", "fast", "uniform(10ms)", "uniform(2s,1s)", "exp()", "normal(1s)"}) {
            assertThrows(IllegalArgumentException.class, () -> Latency.parse(bad), bad);
        }
    }

    @Test
    void samplesHaveTheRequestedMeans() {
        assertEquals(50, meanMs(Latency.parse("50ms"), 10), 1e-9);
        assertEquals(55, meanMs(Latency.parse("uniform(10ms,100ms)"), 100_000), 1.0);
        assertEquals(20, meanMs(Latency.parse("exp(20ms)"), 100_000), 0.5);
        assertEquals(50, meanMs(Latency.parse("normal(50ms,5ms)"), 100_000), 0.2);
        SplittableRandom r = new SplittableRandom(1);
        Latency u = Latency.parse("uniform(10ms,20ms)");
        for (int i = 0; i < 10_000; i++) {
            long s = u.sampleNanos(r);
            assertTrue(s >= 10_000_000 && s <= 20_000_000);
        }
    }

    @Test
    void latenciesAreCappedAtAMinute() {
        for (String over : new String[]{"61s", "fixed(2m)", "uniform(1s,1000000h)", "exp(1h)", "normal(1s,2m)",
                "normal(2m,1s)", "uniform(0,9999999999999999h)"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Latency.parse(over),
                    over);
            assertTrue(e.getMessage().contains("60s") || e.getMessage().contains("292 years")
                    || e.getMessage().contains("overflow"), e.getMessage());
        }
        assertEquals(Duration.ofSeconds(60), ((Latency.Uniform) Latency.parse("uniform(59s,60s)")).max());
        // a tail is cut at the cap: every draw of exp(60s) stays within it
        SplittableRandom r = new SplittableRandom(7);
        Latency exp = Latency.parse("exp(60s)");
        for (int i = 0; i < 10_000; i++) {
            long d = Latency.drawNanos(exp, r);
            assertTrue(d >= 0 && d <= Latency.MAX.toNanos(), Long.toString(d));
        }
    }
}
