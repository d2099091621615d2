package dev.provbench.run;

import dev.provbench.util.Durations;
import io.fabric8.kubernetes.api.model.Quantity;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * The upper bounds of a run's options ({@code provbench.limits.*}, e.g. PROVBENCH_LIMITS_THREADS): the CLI
 * answers exit code 2 past them, the API 400, each naming the option. An operator may raise them; the
 * defaults are documented in docs/load.md.
 */
@ConfigMapping(prefix = "provbench.limits")
public interface RunLimits {
    /** Workers. */
    @WithDefault("4096")
    int threads();

    /** Every duration option: duration, warm-up and its cap, op timeout, interval, max p99. */
    @WithDefault("24h")
    String duration();

    /** Client and stand-in provisioner QPS. */
    @WithDefault("100000")
    double qps();

    /** Client and stand-in provisioner burst. */
    @WithDefault("1000000")
    int burst();

    /** The claims' requested size. */
    @WithDefault("1Pi")
    String size();

    /** Cycles of a --cycles run. */
    @WithDefault("1000000000")
    long cycles();

    /** Claims of a --mode bulk run (each is held in memory until the wave ends: ~200 bytes). */
    @WithDefault("1000000")
    long count();

    /** The bounds as plain values, checked once. */
    record Values(int threads, Duration duration, double qps, int burst, String size, long cycles, long count) {
        public static final Values DEFAULT = new Values(4096, Duration.ofHours(24), 100_000, 1_000_000, "1Pi",
                1_000_000_000L, 1_000_000L);

        public BigDecimal sizeBytes() {
            return Quantity.getAmountInBytes(new Quantity(size));
        }
    }

    default Values values() {
        return new Values(threads(), Durations.parse(duration()), qps(), burst(), size(), cycles(), count());
    }
}
