package dev.provbench.load;

import dev.provbench.kube.RequestStats;
import dev.provbench.report.RunReport;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One closed-loop load run: {@code threads} workers each create a claim, wait until it is Bound, delete it and
 * wait until its volume is gone, until the duration or cycle count is reached; then whatever this run created
 * is deleted. A create op completes at Bound, a delete op when the PV object is gone.
 */
public final class LoadRun {
    private static final Logger LOG = Logger.getLogger(LoadRun.class);

    /** Everything measured, handed to the report builder. */
    public record Outcome(String runId, Instant start, Instant end, double seconds, OpLog log,
                          long inFlightAtEnd, RequestStats.Snapshot requests, RunReport.Cleanup cleanup,
                          DriverCounts.Counts driver, long[] throttledSeries) {
    }

    private final RunConfig config;
    private final KubernetesClient client;
    private final RequestStats stats;
    private final Clock clock;
    private final String runId;
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong cyclesStarted = new AtomicLong();
    private volatile boolean stopping;
    private volatile boolean aborted;
    private final List<Thread> workers = new ArrayList<>();
    private OpLog log;
    private Waits waits;

    private io.micrometer.core.instrument.MeterRegistry registry;

    /** Publish live operation metrics to this registry. */
    public LoadRun withMetrics(io.micrometer.core.instrument.MeterRegistry registry) {
        this.registry = registry;
        return this;
    }

    public LoadRun(RunConfig config, KubernetesClient client, RequestStats stats, Clock clock) {
        this(HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()), config, client, stats, clock);
    }

    /** @param runId the value of {@link RunConfig#LABEL} on this run's claims, and part of their names */
    public LoadRun(String runId, RunConfig config, KubernetesClient client, RequestStats stats, Clock clock) {
        this.config = config;
        this.client = client;
        this.stats = stats;
        this.clock = clock;
        this.runId = runId;
    }

    public String runId() {
        return runId;
    }

    public OpLog log() {
        return log;
    }

    /** Stops starting new cycles; running operations finish (bounded by the op timeout), then cleanup runs. */
    public void abort() {
        aborted = true;
        stopping = true;
    }

    public boolean aborted() {
        return aborted;
    }

    /** Starts the informers (this is also the check that the cluster answers). */
    public void prepare() throws Exception {
        waits = new Waits(client, config.namespace(), runId, config.waitMode(), Duration.ofSeconds(60));
    }

    public Outcome execute(DriverCounts driverCounts, List<WindowProbe> probes) throws Exception {
        if (waits == null) {
            prepare();
        }
        probes.forEach(WindowProbe::windowStart);
        DriverCounts.Counts driverBefore = readDriver(driverCounts);
        long intervalNanos = config.interval().toNanos();
        long planned = config.cycles() > 0 ? Duration.ofHours(24).toNanos() : config.duration().toNanos();
        int maxIntervals = (int) Math.min(100_000, planned / intervalNanos + 2);
        long startNanos = System.nanoTime();
        Instant start = clock.instant();
        log = new OpLog(startNanos, intervalNanos, maxIntervals).withMetrics(registry);
        long[] throttled = new long[maxIntervals];
        long throttledAtStart = stats.throttled();
        CountDownLatch finished = new CountDownLatch(config.threads());
        for (int i = 0; i < config.threads(); i++) {
            Thread t = new Thread(() -> {
                try {
                    work();
                } finally {
                    finished.countDown();
                }
            }, "provbench-worker-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        long deadline = config.cycles() > 0 ? Long.MAX_VALUE : startNanos + config.duration().toNanos();
        while (!aborted && System.nanoTime() < deadline) {
            long now = System.nanoTime();
            int bucket = (int) Math.min(maxIntervals - 1, (now - startNanos) / intervalNanos);
            throttled[bucket] = stats.throttled() - throttledAtStart; // cumulative at the latest sample
            if (finished.await(Math.max(1, Math.min(100, (deadline - now) / 1_000_000)), TimeUnit.MILLISECONDS)) {
                break;
            }
        }
        long endNanos = Math.min(System.nanoTime(), deadline);
        throttled[(int) Math.min(maxIntervals - 1, (endNanos - startNanos) / intervalNanos)] =
                stats.throttled() - throttledAtStart;
        stopping = true;
        log.closeWindow(endNanos);
        long inFlightAtEnd = log.inFlight();
        Instant end = start.plusNanos(endNanos - startNanos);
        DriverCounts.Counts driverAfter = readDriver(driverCounts);
        probes.forEach(WindowProbe::windowEnd);
        // let running operations finish (counted as after the window), bounded by the op timeout; an abort
        // (SIGTERM) cuts this short: cleanup finds whatever was created by its label anyway
        long drainDeadline = System.nanoTime() + config.opTimeout().toNanos() * 2 + 5_000_000_000L;
        while (!finished.await(100, TimeUnit.MILLISECONDS)) {
            if (aborted || System.nanoTime() > drainDeadline) {
                workers.forEach(Thread::interrupt);
                finished.await(10, TimeUnit.SECONDS);
                break;
            }
        }
        RunReport.Cleanup cleanup = cleanup();
        waits.close();
        DriverCounts.Counts driver = driverBefore == null || driverAfter == null ? null
                : driverAfter.minus(driverBefore);
        double seconds = (endNanos - startNanos) / 1e9;
        return new Outcome(runId, start, end, seconds, log, inFlightAtEnd, stats.snapshot(), cleanup, driver,
                throttled);
    }

    private static DriverCounts.Counts readDriver(DriverCounts source) {
        if (source == null) {
            return null;
        }
        try {
            return source.read();
        } catch (Exception e) {
            LOG.warnf("cannot read the driver's counts from %s: %s", source.source(), e.getMessage());
            return null;
        }
    }

    private void work() {
        while (!stopping) {
            if (config.cycles() > 0 && cyclesStarted.incrementAndGet() > config.cycles()) {
                return;
            }
            try {
                cycle();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private PersistentVolumeClaim claim(String name) {
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName(name).withNamespace(config.namespace())
                .addToLabels(RunConfig.LABEL, runId).endMetadata()
                .withNewSpec().withStorageClassName(config.storageClass())
                .withAccessModes(config.accessMode())
                .withNewResources().addToRequests("storage", new Quantity(config.size())).endResources()
                .endSpec().build();
    }

    private static String cause(String op, KubernetesClientException e) {
        return op + ":" + (e.getCode() > 0 ? "http-" + e.getCode() : "error");
    }

    private void cycle() throws InterruptedException {
        String name = "pb-" + runId + "-" + sequence.incrementAndGet();
        Duration timeout = config.opTimeout();
        log.started();
        long t0 = System.nanoTime();
        String volume;
        try {
            client.persistentVolumeClaims().inNamespace(config.namespace()).resource(claim(name)).create();
            volume = waits.awaitBound(name, timeout);
            long now = System.nanoTime();
            log.completed(OpLog.Kind.CREATE, now, now - t0);
        } catch (KubernetesClientException e) {
            log.failed(cause("create", e), System.nanoTime());
            log.ended();
            backoff();
            return;
        } catch (TimeoutException e) {
            log.failed("create:timeout", System.nanoTime());
            log.ended();
            return; // cleanup deletes it
        } catch (IllegalStateException e) {
            log.ended();
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            log.failed("create:" + e.getClass().getSimpleName(), System.nanoTime());
            backoff();
            return;
        }
        long t1 = System.nanoTime();
        try {
            client.persistentVolumeClaims().inNamespace(config.namespace()).withName(name).delete();
            waits.awaitGone(volume, timeout);
            long now = System.nanoTime();
            log.completed(OpLog.Kind.DELETE, now, now - t1);
        } catch (KubernetesClientException e) {
            log.failed(cause("delete", e), System.nanoTime());
            backoff();
        } catch (TimeoutException e) {
            log.failed("delete:timeout", System.nanoTime());
        } catch (IllegalStateException e) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            log.failed("delete:" + e.getClass().getSimpleName(), System.nanoTime());
        } finally {
            log.ended();
        }
    }

    private void backoff() throws InterruptedException {
        if (!stopping) {
            Thread.sleep(1000);
        }
    }

    /** Deletes every claim carrying this run's label and waits for their volumes; lists what stays. */
    private RunReport.Cleanup cleanup() {
        List<String> leftover = new ArrayList<>();
        long deleted = 0;
        List<String> volumes = new ArrayList<>();
        try {
            for (PersistentVolumeClaim c : client.persistentVolumeClaims().inNamespace(config.namespace())
                    .withLabel(RunConfig.LABEL, runId).list().getItems()) {
                if (c.getSpec() != null && c.getSpec().getVolumeName() != null) {
                    volumes.add(c.getSpec().getVolumeName());
                }
                if (c.getMetadata().getDeletionTimestamp() == null) {
                    client.persistentVolumeClaims().inNamespace(config.namespace())
                            .withName(c.getMetadata().getName()).delete();
                    deleted++;
                }
            }
            long deadline = System.nanoTime() + config.opTimeout().toNanos() * 2;
            for (String v : volumes) {
                long left = deadline - System.nanoTime();
                try {
                    waits.awaitGone(v, Duration.ofNanos(Math.max(left, 1)));
                } catch (TimeoutException e) {
                    leftover.add("persistentvolume/" + v);
                }
            }
            for (PersistentVolumeClaim c : client.persistentVolumeClaims().inNamespace(config.namespace())
                    .withLabel(RunConfig.LABEL, runId).list().getItems()) {
                leftover.add("persistentvolumeclaim/" + config.namespace() + "/" + c.getMetadata().getName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            leftover.add("cleanup interrupted");
        } catch (KubernetesClientException e) {
            leftover.add("cleanup failed: " + e.getMessage());
        }
        return new RunReport.Cleanup(deleted, leftover);
    }
}
