package dev.provbench.load;

import java.time.Duration;

/**
 * One load run's settings.
 *
 * @param cycles 0 = run for {@code duration}
 */
public record RunConfig(int threads, Duration duration, long cycles, Duration opTimeout, String namespace,
                        String storageClass, String size, String accessMode, WaitMode waitMode, double qps,
                        int burst, Duration interval) {

    public enum WaitMode { INFORMER, POLL }

    public static final String LABEL = "provbench.dev/run-id";
}
