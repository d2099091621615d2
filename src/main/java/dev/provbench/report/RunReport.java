package dev.provbench.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;
import java.util.Map;

/**
 * The result of one load run. Its JSON form is versioned by {@link #schemaVersion}: names are only ever
 * added within a version. Latencies are in milliseconds, rates per second. Every count covers the
 * measurement window ({@link Window}) unless its name says otherwise; each figure's definition, and the
 * class that computes it, is in the table in docs/load.md.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"schemaVersion", "tool", "mode", "runId", "passed", "config", "window", "ops", "latency",
        "requests", "throttling", "driver", "provisioner", "components", "resources", "cleanup", "thresholds",
        "warnings", "timeseries"})
public record RunReport(int schemaVersion, Tool tool, String mode, String runId, Boolean passed, Config config,
                        Window window, Ops ops, Latencies latency, Requests requests, Throttling throttling,
                        Driver driver, Provisioner provisioner, Map<String, Requests> components,
                        Map<String, Resources> resources, Cleanup cleanup, List<Threshold> thresholds,
                        List<String> warnings, List<Interval> timeseries) {

    public static final int SCHEMA_VERSION = 2;

    public record Tool(String name, String version) {
    }

    public record Config(int threads, String duration, Long cycles, String warmup, String warmupMax,
                         String opTimeout, String namespace, String storageClass, String size, String accessMode,
                         String waitMode, double qps, int burst, String interval, Double provisionerQps,
                         Integer provisionerBurst, String provisionerReads) {
    }

    /**
     * The measurement window and the verdict on it.
     *
     * @param warmupSeconds         run start → window start
     * @param warmupCapped          the auto warm-up hit {@code --warmup-max} before every worker ended a cycle
     * @param seconds               window start → window end
     * @param steady                false when the ops/s trend over the window's intervals is significant (its
     *                              95 % interval excludes 0) and amounts to more than 10 % over the window, or
     *                              when there are too few intervals to tell
     * @param trendPercentPerMinute least-squares slope of per-interval ops/s, % of their mean per minute
     * @param trendCi95             that slope's 95 % confidence interval, same unit
     * @param cv                    coefficient of variation of the per-interval ops/s
     * @param intervals             whole intervals inside the window that the verdict used
     * @param verdict               one line saying why
     */
    public record Window(String start, String end, double warmupSeconds, boolean warmupCapped, double seconds,
                         boolean steady, Double trendPercentPerMinute, List<Double> trendCi95, Double cv,
                         int intervals, String verdict) {
    }

    /**
     * @param opsPerSecond          (creates + deletes) / window seconds
     * @param cyclesPerSecond       cycles that ended with their delete in the window / window seconds
     * @param failuresOutsideWindow failed ops in warm-up or drain (in the time series, not in failures)
     * @param recovered             creates in {@code creates} whose answer was lost (no answer, a 5xx) but whose
     *                              claim existed: adopted and completed at Bound
     * @param deleteRetries         DELETEs sent again in the window after a failed one
     * @param reclaimed             claims of failed creates the run deleted in the window (not left to the
     *                              cleanup)
     */
    public record Ops(long creates, long deletes, long failures, Map<String, Long> failuresByCause,
                      double opsPerSecond, double cyclesPerSecond, long inFlightAtStart, long inFlightAtEnd,
                      long completedInWarmup, long completedAfterWindow, long failuresOutsideWindow,
                      long recovered, long deleteRetries, long reclaimed) {
    }

    public record Latency(long count, double mean, double p50, double p90, double p99, double p999, double max) {
    }

    /**
     * @param queue    the op's request waiting for a token of provbench's own limiter
     * @param pipeline request sent → outcome seen (create: Bound; delete: PV gone)
     * @param total    both: the op's whole time as a worker sees it
     */
    public record OpLatency(Latency pipeline, Latency queue, Latency total) {
    }

    public record Latencies(OpLatency create, OpLatency delete) {
    }

    /**
     * @param perOp                  requests in the window / ops (creates + deletes) in the window
     * @param totalIncludingCleanup  every attempt from the client's creation to the end of cleanup
     */
    public record Requests(long total, Map<String, Long> byVerb, Map<String, Long> byVerbResource,
                           Map<String, Long> byCode, Double perOp, Long totalIncludingCleanup) {
    }

    public record Throttling(long throttled, long over50ms, long over1s, double waitSeconds, double waitP50Ms,
                             double waitP99Ms, double waitMaxMs, long deferred) {
    }

    /**
     * The mock driver's own view of the window: {@code createVolume}/{@code deleteVolume} are the volumes it
     * created and deleted (idempotent repeats not counted); {@code *Calls} are the calls it answered OK
     * (csi-provisioner repeats DeleteVolume until the PV is gone). {@code errors} are the error answers the
     * driver gave of itself and {@code injected} those it gave because a fault rule said so, both by
     * "Method CODE". {@code resets}: restarts of the driver seen in the window (its figures sum the segments).
     * {@code source} says how they were read.
     */
    public record Driver(Long createVolume, Long deleteVolume, Long createVolumeCalls, Long deleteVolumeCalls,
                         Map<String, Long> errors, Map<String, Long> injected, String source, Integer resets,
                         Agreement agreement) {
    }

    /**
     * Whether the driver's volumes agree with the tool's ops: {@code ok} when the driver's creates (deletes) lie
     * in [tool − in flight at start, tool + in flight at end + failed ops + reclaimed claims] — the driver may
     * act for ops that were in flight at an edge or failed on the tool's side —, {@code reset} when the driver
     * restarted in the window (no exact check is possible), {@code mismatch} otherwise.
     */
    public record Agreement(String status, long toolCreates, long driverCreates, long toolDeletes,
                            long driverDeletes, long allowedBelow, long allowedAbove) {
    }

    /** {@code metricsResets}: restarts of csi-provisioner seen in the window (its metrics sum the segments). */
    public record Provisioner(Long throttlingLines, String logSource, Map<String, Double> metrics,
                              String metricsSource, Integer metricsResets, String note) {
    }

    /**
     * What one component of the pipeline cost.
     *
     * @param cpuCoresIdle    CPU seconds per second in the idle sample before the first request
     * @param cpuCoresWindow  CPU seconds per second over the window
     * @param cpuSecondsPerOp CPU seconds in the window / ops in the window
     * @param rssBytesIdle    resident memory in the idle sample
     * @param rssBytesPeak    the largest resident memory sampled (once a second) from start to finish
     */
    public record Resources(Double cpuCoresIdle, Double cpuCoresWindow, Double cpuSecondsPerOp, Long rssBytesIdle,
                            Long rssBytesPeak, String source, Integer resets, String note) {
    }

    /**
     * What cleanup did ({@code load.RunCleanup}): claims it deleted, and what is still there by a final LIST —
     * empty only when the cluster said nothing of the run is left.
     *
     * @param command the command that removes what is left (null when nothing is)
     */
    public record Cleanup(long deletedClaims, List<Leftover> leftover, Double seconds, String command) {
    }

    /** An object of the run still present after cleanup (or whose state is unknown), and why. */
    public record Leftover(String kind, String name, String namespace, String phase, String reason) {
        @Override
        public String toString() {
            return kind + "/" + (namespace == null ? "" : namespace + "/") + name
                    + (phase == null ? "" : " (" + phase + ")") + ": " + reason;
        }
    }

    public record Threshold(String name, double limit, double actual, boolean passed) {
    }

    /**
     * One interval of the time series: a grid of {@code config.interval} from the run start, in every phase.
     *
     * @param t        seconds from the run start at the interval's end
     * @param phase    warmup, window, drain, or a mix such as warmup+window for an interval the window edge cuts
     * @param cpuCores CPU seconds per second of each component in this interval
     */
    public record Interval(double t, String phase, long creates, long deletes, long failures, double opsPerSecond,
                           long throttled, Map<String, Double> cpuCores) {
    }
}
