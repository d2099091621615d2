package dev.provbench.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;
import java.util.Map;

/**
 * The result of one load run. Its JSON form is versioned by {@link #schemaVersion}: names are only ever
 * added within a version. Latencies are in milliseconds, rates per second.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"schemaVersion", "tool", "mode", "runId", "passed", "config", "window", "ops", "latency",
        "requests", "throttling", "driver", "provisioner", "components", "cleanup", "thresholds", "timeseries"})
public record RunReport(int schemaVersion, Tool tool, String mode, String runId, Boolean passed, Config config,
                        Window window, Ops ops, Latencies latency, Requests requests, Throttling throttling,
                        Driver driver, Provisioner provisioner, Map<String, Requests> components,
                        Cleanup cleanup, List<Threshold> thresholds, List<Interval> timeseries) {

    public static final int SCHEMA_VERSION = 1;

    public record Tool(String name, String version) {
    }

    public record Config(int threads, String duration, Long cycles, String opTimeout, String namespace,
                         String storageClass, String size, String accessMode, String waitMode, double qps,
                         int burst, Double provisionerQps, Integer provisionerBurst, String provisionerReads) {
    }

    public record Window(String start, String end, double seconds) {
    }

    /** @param opsPerSecond creates + deletes per second over the window */
    public record Ops(long creates, long deletes, long failures, Map<String, Long> failuresByCause,
                      double opsPerSecond, double cyclesPerSecond, long inFlightAtEnd, long completedAfterWindow) {
    }

    public record Latency(long count, double mean, double p50, double p90, double p99, double p999, double max) {
    }

    public record Latencies(Latency create, Latency delete) {
    }

    /** @param perOp requests per completed create or delete */
    public record Requests(long total, Map<String, Long> byVerb, Map<String, Long> byVerbResource,
                           Map<String, Long> byCode, Double perOp) {
    }

    public record Throttling(long throttled, long over50ms, long over1s, double waitSeconds, double waitP50Ms,
                             double waitP99Ms, double waitMaxMs, long deferred) {
    }

    /**
     * The mock driver's own view of the window: {@code createVolume}/{@code deleteVolume} are the volumes it
     * created and deleted (idempotent repeats not counted); {@code *Calls} are the calls it answered OK
     * (csi-provisioner repeats DeleteVolume until the PV is gone). {@code source} says how they were read.
     */
    public record Driver(Long createVolume, Long deleteVolume, Long createVolumeCalls, Long deleteVolumeCalls,
                         String source) {
    }

    public record Provisioner(Long throttlingLines, String logSource, Map<String, Double> metrics,
                              String metricsSource, String note) {
    }

    public record Cleanup(long deletedClaims, List<String> leftover) {
    }

    public record Threshold(String name, double limit, double actual, boolean passed) {
    }

    /** One interval of the time series; {@code t} is seconds since the window start at the interval's end. */
    public record Interval(double t, long creates, long deletes, long failures, double opsPerSecond,
                           long throttled) {
    }
}
