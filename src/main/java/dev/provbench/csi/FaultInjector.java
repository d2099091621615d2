package dev.provbench.csi;

import dev.provbench.csi.state.StateException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jboss.logging.Logger;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs every CSI handler: applies the method's injected latency (without blocking a thread) and
 * injected faults, then answers the call. Injected faults are counted on their own meter
 * ({@code provbench_csi_injected_faults_total}) so they can be told apart from real errors.
 */
public class FaultInjector {
    private static final Logger LOG = Logger.getLogger(FaultInjector.class);

    private final Map<String, FaultRule> rules = new ConcurrentHashMap<>();
    private final Map<String, Counter> injectedCounters = new ConcurrentHashMap<>();
    private final MeterRegistry registry;
    /**
     * At most this many calls wait out an injected latency at once; beyond it a call is answered
     * RESOURCE_EXHAUSTED at once (counted as {@code provbench_csi_latency_refused_total}) instead of queueing
     * without bound.
     */
    static final int MAX_DELAYED = 10_000;
    private final java.util.concurrent.atomic.AtomicInteger delayed = new java.util.concurrent.atomic.AtomicInteger();
    private final Counter refused;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "csi-latency");
        t.setDaemon(true);
        return t;
    });

    public FaultInjector(DriverConfig config, MeterRegistry registry) {
        this.registry = registry;
        this.refused = Counter.builder("provbench_csi_latency_refused")
                .description("CSI calls refused with RESOURCE_EXHAUSTED because too many were held by injected "
                        + "latency").register(registry);
        config.injection().forEach((method, rule) ->
                set(method, FaultRule.of(rule.latency().orElse(null), rule.errorRate(), rule.errorCode())));
    }

    /**
     * Checks the configured rules ({@code provbench.driver.inject.*}) without building the injector, so that a
     * bad one is a usage error at start rather than a failure at the first CSI call; throws
     * {@link IllegalArgumentException} naming the method.
     */
    public static void check(DriverConfig config) {
        config.injection().forEach((method, rule) -> {
            try {
                requireKnown(method);
                FaultRule.of(rule.latency().orElse(null), rule.errorRate(), rule.errorCode());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("provbench.driver.inject.\"" + method + "\": " + e.getMessage());
            }
        });
    }

    /** Sets the rule of one method (bare name) or of {@link CsiMethods#ALL}. */
    public void set(String method, FaultRule rule) {
        requireKnown(method);
        rules.put(method, rule);
    }

    public boolean remove(String method) {
        requireKnown(method);
        return rules.remove(method) != null;
    }

    public void clear() {
        rules.clear();
    }

    public Map<String, FaultRule> rules() {
        return new TreeMap<>(rules);
    }

    public long injectedFaults(String method, Status.Code code) {
        Counter c = injectedCounters.get(method + "/" + code);
        return c == null ? 0 : (long) c.count();
    }

    /** Faults injected so far: "Method/CODE" → count. */
    public Map<String, Long> injectedCounts() {
        Map<String, Long> out = new TreeMap<>();
        injectedCounters.forEach((k, c) -> out.put(k, (long) c.count()));
        return out;
    }

    private static void requireKnown(String method) {
        if (!CsiMethods.ALL.equals(method) && !CsiMethods.isKnown(method)) {
            throw new IllegalArgumentException("unknown CSI method '" + method + "'; known: " + CsiMethods.names()
                    + " or * for all");
        }
    }

    private FaultRule ruleFor(String method) {
        if (rules.isEmpty()) {
            return null;
        }
        FaultRule rule = rules.get(method);
        return rule != null ? rule : rules.get(CsiMethods.ALL);
    }

    /**
     * Answers a unary call with what {@code handler} returns, or with the status of the
     * {@link StatusRuntimeException} or {@link StateException} it throws, after any injected latency and fault.
     */
    /** {@link #respond(String, StreamObserver, Supplier)} for a method named by its generated descriptor. */
    public <T> void respond(io.grpc.MethodDescriptor<?, T> method, StreamObserver<T> observer, Supplier<T> handler) {
        respond(CsiMethods.bareName(method.getFullMethodName()), observer, handler);
    }

    public <T> void respond(String method, StreamObserver<T> observer, Supplier<T> handler) {
        FaultRule rule = ruleFor(method);
        if (rule == null) {
            complete(method, observer, handler, null);
            return;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        Status.Code fault = rule.errorRate() > 0 && random.nextDouble() < rule.errorRate() ? rule.errorCode() : null;
        long delay = rule.latency() == null ? 0 : Latency.drawNanos(rule.latency(), random);
        if (delay <= 0) {
            complete(method, observer, handler, fault);
            return;
        }
        if (delayed.incrementAndGet() > MAX_DELAYED) {
            delayed.decrementAndGet();
            refused.increment();
            observer.onError(Status.RESOURCE_EXHAUSTED.withDescription("more than " + MAX_DELAYED
                    + " calls are held by injected latency").asRuntimeException());
            return;
        }
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable release = () -> {
            if (done.compareAndSet(false, true)) {
                delayed.decrementAndGet();
            }
        };
        var task = scheduler.schedule(() -> {
            release.run();
            complete(method, observer, handler, fault);
        }, delay, TimeUnit.NANOSECONDS);
        if (observer instanceof io.grpc.stub.ServerCallStreamObserver<T> call) {
            // a client that gives up (deadline, cancel) frees its slot at once; its handler never runs
            call.setOnCancelHandler(() -> {
                task.cancel(false);
                release.run();
            });
        }
    }

    /** The description of every injected fault's status: what tells it apart from the driver's own errors. */
    static final String INJECTED = "injected fault";

    /** Whether {@code status} is a fault this injector injected. */
    static boolean isInjected(Status status) {
        return INJECTED.equals(status.getDescription());
    }

    /** Calls waiting out an injected latency now. */
    public int delayedCalls() {
        return delayed.get();
    }

    private <T> void complete(String method, StreamObserver<T> observer, Supplier<T> handler, Status.Code fault) {
        try {
            if (fault != null) {
                injectedCounters.computeIfAbsent(method + "/" + fault, k -> Counter
                        .builder("provbench_csi_injected_faults")
                        .description("Faults injected into CSI calls, by method and code")
                        .tag("method", method).tag("code", fault.name())
                        .register(registry)).increment();
                observer.onError(Status.fromCode(fault).withDescription(INJECTED).asRuntimeException());
                return;
            }
            T response;
            try {
                response = handler.get();
            } catch (StatusRuntimeException e) {
                observer.onError(e);
                return;
            } catch (StateException e) {
                observer.onError(Status.fromCode(Status.Code.valueOf(e.reason().name()))
                        .withDescription(e.getMessage()).asRuntimeException());
                return;
            } catch (RuntimeException e) {
                LOG.errorf(e, "%s failed unexpectedly", method);
                observer.onError(Status.INTERNAL.withDescription(method + ": " + e).asRuntimeException());
                return;
            }
            observer.onNext(response);
            observer.onCompleted();
        } catch (RuntimeException e) {
            // The call was cancelled (client deadline) while we were delaying it.
            LOG.debugf("%s: could not answer: %s", method, e);
        }
    }

    /** Stops the latency scheduler (at shutdown, {@link DriverBeans}). */
    public void stop() {
        scheduler.shutdownNow();
    }
}
