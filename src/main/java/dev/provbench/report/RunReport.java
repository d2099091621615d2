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

    public static final int SCHEMA_VERSION = 3;

    public record Tool(String name, String version) {
    }

    public record Config(int threads, String duration, Long cycles, String warmup, String warmupMax,
                         String opTimeout, String namespace, String storageClass, String size, String accessMode,
                         String waitMode, double qps, int burst, String interval, Double provisionerQps,
                         Integer provisionerBurst, String provisionerReads, String ramp) {
    }

    /**
     * The measurement window and the verdict on it.
     *
     * @param warmupSeconds         run start → window start
     * @param warmupCapped          the auto warm-up hit {@code --warmup-max} before every worker ended a cycle
     * @param seconds               window start → window end
     * @param verdict               {@code steady}, {@code not steady} or {@code undetermined} (measure.SteadyState)
     * @param reason                one line saying why, with the figures
     * @param bandPercentPerMinute  steady: the trend's 95 % interval lies within ± this
     * @param trendPercentPerMinute least-squares slope of per-bin ops/s, % of their mean per minute
     * @param trendCi95             that slope's 95 % confidence interval, same unit, corrected for lag-1
     *                              autocorrelation
     * @param cv                    coefficient of variation of the per-bin ops/s
     * @param lag1                  lag-1 autocorrelation of the fit's residuals
     * @param bins                  whole bins of {@code binSeconds} inside the window that the verdict used
     * @param wouldTellSeconds      undetermined: the window length that would tell at this noise, else null
     */
    public record Window(String start, String end, double warmupSeconds, boolean warmupCapped, double seconds,
                         String verdict, String reason, double bandPercentPerMinute, Double trendPercentPerMinute,
                         List<Double> trendCi95, Double cv, Double lag1, int bins, double binSeconds,
                         Double wouldTellSeconds) {
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

    /** {@code stages}: where each op's time went ({@code measure.OperationStages}); null when not measured. */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Latencies(OpLatency create, OpLatency delete, Stages stages) {
        public Latencies(OpLatency create, OpLatency delete) {
            this(create, delete, null);
        }
    }

    /**
     * One stage of an op, over the window's ops that have every stamp: from the previous stamp to this one (ms).
     *
     * @param share    this stage's mean / the sum of the stages' means (the op's mean total time)
     * @param clocks   {@code tool}, {@code driver}, or {@code tool+driver} when its two ends come from two
     *                 processes' clocks
     * @param negative ops whose stage came out below 0 (possible only across two clocks or two observers), else null
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Stage(String stage, long n, double mean, double p50, double p90, double p99, double max,
                        double share, String clocks, Long negative) {
    }

    /**
     * @param complete  window ops with every stamp (the stages' n)
     * @param missing   the others, by the first stamp each lacks
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record StageOps(long complete, Map<String, Long> missing) {
    }

    /**
     * @param dominant     per kind, the stage with the largest mean
     * @param driverCalls  where the driver's stamps came from, or null when no driver was readable
     * @param twoClocks    true when a stage mixes the tool's clock with a driver's on another machine (then
     *                     those stages may be off by the clocks' offset)
     * @param note         what may make these figures wrong (calls missed, a source unreadable), or null
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Stages(List<Stage> create, List<Stage> delete, Map<String, String> dominant,
                         Map<String, StageOps> ops, String driverCalls, boolean twoClocks, String note) {
    }

    /**
     * @param perOp                  requests in the window / ops (creates + deletes) in the window
     * @param totalIncludingCleanup  every attempt from the client's creation to the end of cleanup
     */
    public record Requests(long total, Map<String, Long> byVerb, Map<String, Long> byVerbResource,
                           Map<String, Long> byCode, Double perOp, Long totalIncludingCleanup) {
    }

    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Throttling(long throttled, long over50ms, long over1s, double waitSeconds, double waitP50Ms,
                             double waitP99Ms, double waitMaxMs, long deferred, ProvisionerBucket provisioner,
                             ServerThrottling server) {
        public Throttling(long throttled, long over50ms, long over1s, double waitSeconds, double waitP50Ms,
                double waitP99Ms, double waitMaxMs, long deferred) {
            this(throttled, over50ms, over1s, waitSeconds, waitP50Ms, waitP99Ms, waitMaxMs, deferred, null, null);
        }
    }

    /**
     * Was csi-provisioner bound by its client-side bucket in the window?
     *
     * @param method     how it was found: the stand-in's own bucket (exact) or a replay of the audit log
     * @param assumed    qps/burst not given (--provisioner-qps/--provisioner-burst): csi-provisioner's defaults
     * @param atLimit    requests sent at the bucket's limit (they waited for their token)
     * @param boundShare share of the window the bucket held under one token (null when not known)
     * @param verdict    {@code bound} (≥ 50 % of the window), {@code partly bound}, {@code not bound} (< 10 %)
     * @param logLines   csi-provisioner's own throttling log lines in the window (a lower bound), when read
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record ProvisionerBucket(String method, Double qps, Integer burst, Boolean assumed, long requests,
                                    long atLimit, Double atLimitShare, Double boundShare, String verdict,
                                    Long logLines) {
    }

    /** One API Priority and Fairness priority level over the window (kube-apiserver's /metrics). */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record PriorityLevel(long dispatched, long rejected, Map<String, Long> rejectedByReason,
                                Double waitMeanMs, Long inQueueAtEnd) {
    }

    /**
     * Server-side throttling: API Priority and Fairness.
     *
     * @param readable       false when kube-apiserver's /metrics could not be read ({@code reason} says why)
     * @param clients        per component, its window requests by "flow schema → priority level" (audit log)
     * @param rejected       429s over every priority level
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record ServerThrottling(boolean readable, String reason, String source,
                                   Map<String, PriorityLevel> priorityLevels,
                                   Map<String, Map<String, Long>> clients, Long rejected, Integer resets) {
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
