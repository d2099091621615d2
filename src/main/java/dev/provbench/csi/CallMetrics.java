package dev.provbench.csi;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts every CSI call by method and result code ({@code provbench_csi_requests_total}) and records its
 * latency ({@code provbench_csi_request_duration_seconds}, a histogram), whatever the outcome.
 */
public class CallMetrics {
    private record Key(String method, Status.Code code) {
    }

    private record Meters(Counter counter, Timer timer) {
    }

    private final MeterRegistry registry;
    private final Map<Key, Meters> meters = new ConcurrentHashMap<>();
    private final CallLog calls = new CallLog();

    public CallMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The interceptor for the CSI server (not a bean itself, so Quarkus' gRPC server does not claim it). */
    public ServerInterceptor interceptor() {
        return this::interceptCall;
    }

    /** When each CreateVolume and DeleteVolume was received and answered (the stages of a run's operations). */
    public CallLog calls() {
        return calls;
    }

    private <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
            ServerCallHandler<Q, R> next) {
        String method = CsiMethods.bareName(call.getMethodDescriptor().getFullMethodName());
        long start = System.nanoTime();
        boolean logged = "CreateVolume".equals(method) || "DeleteVolume".equals(method);
        String[] seen = new String[2]; // request's name or volume id, response's volume id
        long[] received = new long[1];
        ServerCall<Q, R> counted = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(R message) {
                if (message instanceof csi.v1.Csi.CreateVolumeResponse r) {
                    seen[1] = r.getVolume().getVolumeId();
                }
                super.sendMessage(message);
            }

            @Override
            public void close(Status status, Metadata trailers) {
                record(method, status.getCode(), System.nanoTime() - start);
                if (logged && seen[0] != null) {
                    calls.add(method, seen[0], status.isOk() ? seen[1] : null, received[0], CallLog.nowMicros(),
                            status.getCode().name(), FaultInjector.isInjected(status));
                }
                super.close(status, trailers);
            }
        };
        ServerCall.Listener<Q> listener = next.startCall(counted, headers);
        if (!logged) {
            return listener;
        }
        return new io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onMessage(Q message) {
                received[0] = CallLog.nowMicros();
                if (message instanceof csi.v1.Csi.CreateVolumeRequest r) {
                    seen[0] = r.getName();
                } else if (message instanceof csi.v1.Csi.DeleteVolumeRequest r) {
                    seen[0] = r.getVolumeId();
                }
                super.onMessage(message);
            }
        };
    }

    void record(String method, Status.Code code, long nanos) {
        Meters m = meters.computeIfAbsent(new Key(method, code), k -> new Meters(
                Counter.builder("provbench_csi_requests")
                        .description("CSI calls answered, by method and gRPC code")
                        .tag("method", k.method()).tag("code", k.code().name())
                        .register(registry),
                Timer.builder("provbench_csi_request_duration")
                        .description("CSI call latency as the driver saw it, by method and gRPC code")
                        .tag("method", k.method()).tag("code", k.code().name())
                        .publishPercentileHistogram()
                        .register(registry)));
        m.counter().increment();
        m.timer().record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Calls so far: method → code → count. */
    public Map<String, Map<String, Long>> counts() {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        meters.forEach((k, m) -> out.computeIfAbsent(k.method(), x -> new TreeMap<>())
                .put(k.code().name(), (long) m.counter().count()));
        return out;
    }

    public long count(String method, Status.Code code) {
        Meters m = meters.get(new Key(method, code));
        return m == null ? 0 : (long) m.counter().count();
    }
}
