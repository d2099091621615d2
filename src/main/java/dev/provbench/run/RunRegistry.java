package dev.provbench.run;

import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The runs of this process: at most one active at a time (two runs would measure each other), the last
 * {@value #KEPT} kept with their reports. On shutdown (SIGTERM/SIGINT) the active run is aborted and shutdown
 * waits until it has cleaned up what it created and written its report.
 */
@ApplicationScoped
public class RunRegistry {
    private static final Logger LOG = Logger.getLogger(RunRegistry.class);
    static final int KEPT = 100;

    private final Map<String, RunExecution> runs = new LinkedHashMap<>();
    private RunExecution active;
    private String reservedBy;
    private CountDownLatch done = new CountDownLatch(0);

    /**
     * Keeps the registry for {@code owner} (a sweep's id): only {@link #begin(String, RunExecution)} with that
     * owner starts runs until {@link #release}. False when a run is active or another owner holds it.
     */
    public synchronized boolean reserve(String owner) {
        if (active != null || reservedBy != null) {
            return false;
        }
        reservedBy = owner;
        return true;
    }

    public synchronized void release(String owner) {
        if (owner.equals(reservedBy)) {
            reservedBy = null;
        }
    }

    /** The owner that holds the registry, if any. */
    public synchronized Optional<String> reservedBy() {
        return Optional.ofNullable(reservedBy);
    }

    /** Registers {@code e} as the active run, or returns the run that is active instead. */
    public synchronized Optional<RunExecution> begin(RunExecution e) {
        return begin(null, e);
    }

    /**
     * As {@link #begin(RunExecution)}, for a run of {@code owner}; while another owner holds the registry no run
     * begins (the last run is returned, or {@code e} itself when there was none).
     */
    public synchronized Optional<RunExecution> begin(String owner, RunExecution e) {
        // a run whose end is visible has torn down; only its launcher's end() call may still be on its way
        if (active != null && !active.state().ended()) {
            return Optional.of(active);
        }
        if (reservedBy != null && !reservedBy.equals(owner)) {
            return Optional.of(runs.isEmpty() ? e : runs.values().stream().reduce((a, b) -> b).orElse(e));
        }
        active = e;
        done = new CountDownLatch(1);
        runs.put(e.id(), e);
        while (runs.size() > KEPT) {
            String oldest = runs.keySet().iterator().next();
            runs.remove(oldest);
        }
        return Optional.empty();
    }

    /** The active run has ended (whatever its outcome). */
    public synchronized void end(RunExecution e) {
        if (active == e) {
            active = null;
            done.countDown();
        }
    }

    public synchronized Optional<RunExecution> active() {
        return Optional.ofNullable(active);
    }

    public synchronized Optional<RunExecution> get(String id) {
        return Optional.ofNullable(runs.get(id));
    }

    /** Newest first. */
    public synchronized List<RunExecution> all() {
        List<RunExecution> out = new ArrayList<>(runs.values());
        java.util.Collections.reverse(out);
        return out;
    }

    /**
     * Runs before the other shutdown observers (priority 1): the CSI server must still serve while the run's
     * cleanup deletes volumes through it.
     */
    void onShutdown(@Observes @Priority(1) ShutdownEvent event) throws InterruptedException {
        RunExecution e;
        CountDownLatch wait;
        synchronized (this) {
            e = active;
            wait = done;
        }
        long bound = 60;
        if (e != null) {
            var c = e.checked().config();
            bound += c.abortGrace().toSeconds() + c.cleanupTimeout().toSeconds();
            LOG.infof("stopping: aborting run %s, cleaning up (at most %ds) and writing the report", e.id(),
                    c.abortGrace().toSeconds() + c.cleanupTimeout().toSeconds());
            e.abort();
        }
        if (!wait.await(bound, TimeUnit.SECONDS)) {
            LOG.warn("the run did not finish its cleanup in time");
        }
    }
}
