package dev.provbench.load;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.time.Duration;

/**
 * One load run's settings, checked (built by {@code run.RunRequest#check}).
 *
 * @param cycles    0 = run the window for {@code duration}; else the window ends after this many cycles
 * @param warmup    null = auto (the window opens once every worker has ended one cycle), else a fixed time
 *                  (zero: no warm-up)
 * @param warmupMax the auto warm-up's cap: past it the window opens anyway (the report says so)
 * @param cleanupTimeout how long cleanup may delete and wait for the run's claims and volumes ({@link RunCleanup})
 * @param stallTimeout   how long after its first create a cluster run with no completed create is judged by
 *                       {@link Stall} (zero: never)
 * @param ramp           null = auto (one worker, then one more per ended cycle, see {@link ChurnWorkload}); zero:
 *                       all at once; else evenly over this time
 * @param mode           the workload ({@link Workloads}): {@code churn} or {@code bulk}
 * @param count          {@code bulk}: the claims of the wave; 0 otherwise
 * @param population     {@code --population}: the standing claims beside the run ({@link Population}); null: the
 *                       run does not touch a population
 * @param populationMode {@code provisioned} or {@code prebound}; null without a population
 * @param keepPopulation leave the population in place after the run
 * @param namespaces     how many namespaces the claims are spread over ({@link RunNamespaces}): 1 = {@code namespace}
 */
public record RunConfig(int threads, Duration duration, long cycles, Duration opTimeout, String namespace,
                        String storageClass, String size, String accessMode, WaitMode waitMode, double qps,
                        int burst, Duration interval,
                        @JsonSerialize(nullsUsing = Auto.class) Duration warmup, Duration warmupMax,
                        Duration abortGrace, Duration cleanupTimeout, Duration stallTimeout,
                        @JsonSerialize(nullsUsing = Auto.class) Duration ramp, String mode, long count,
                        Long population, String populationMode, boolean keepPopulation, int namespaces) {

    /** A churn run's settings (what tests build). */
    public RunConfig(int threads, Duration duration, long cycles, Duration opTimeout, String namespace,
                     String storageClass, String size, String accessMode, WaitMode waitMode, double qps, int burst,
                     Duration interval, Duration warmup, Duration warmupMax, Duration abortGrace,
                     Duration cleanupTimeout, Duration stallTimeout, Duration ramp) {
        this(threads, duration, cycles, opTimeout, namespace, storageClass, size, accessMode, waitMode, qps, burst,
                interval, warmup, warmupMax, abortGrace, cleanupTimeout, stallTimeout, ramp, ChurnWorkload.NAME, 0,
                null, null, false, 1);
    }

    /** A null duration of a setting whose null means "auto" is written so. */
    static final class Auto extends com.fasterxml.jackson.databind.JsonSerializer<Object> {
        @Override
        public void serialize(Object v, com.fasterxml.jackson.core.JsonGenerator g,
                com.fasterxml.jackson.databind.SerializerProvider p) throws java.io.IOException {
            g.writeString("auto");
        }
    }

    /** How workers wait for Bound and for PV-gone; JSON and flag values are the lower-case names. */
    public enum WaitMode {
        @com.fasterxml.jackson.annotation.JsonProperty("informer") INFORMER,
        @com.fasterxml.jackson.annotation.JsonProperty("poll") POLL;

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public static final String LABEL = "provbench.dev/run-id";

    public boolean autoWarmup() {
        return warmup == null;
    }

    public boolean autoRamp() {
        return ramp == null;
    }

    /** The longest the warm-up can last. */
    public Duration warmupLimit() {
        return warmup == null ? warmupMax : warmup;
    }
}
