package dev.provbench.csi;

import io.grpc.Status;

import java.util.Locale;

/**
 * What to inject into one CSI method: an optional latency and an error rate with its gRPC code.
 *
 * @param latency   null for none
 * @param errorRate 0..1
 * @param errorCode the code injected faults carry; never OK
 */
public record FaultRule(Latency latency, double errorRate, Status.Code errorCode) {

    public FaultRule {
        if (Double.isNaN(errorRate) || errorRate < 0 || errorRate > 1) {
            throw new IllegalArgumentException("errorRate must be between 0 and 1, got " + errorRate);
        }
        if (errorCode == null || errorCode == Status.Code.OK) {
            throw new IllegalArgumentException("errorCode must be a gRPC error code such as UNAVAILABLE, not OK");
        }
    }

    public static FaultRule of(String latency, double errorRate, String errorCode) {
        Latency l = latency == null || latency.isBlank() ? null : Latency.parse(latency);
        return new FaultRule(l, errorRate, parseCode(errorCode == null ? "UNAVAILABLE" : errorCode));
    }

    public static Status.Code parseCode(String name) {
        try {
            return Status.Code.valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + name + "' is not a gRPC status code (e.g. UNAVAILABLE, "
                    + "RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, INTERNAL)");
        }
    }
}
