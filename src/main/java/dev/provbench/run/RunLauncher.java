package dev.provbench.run;

import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Optional;

/**
 * Starts runs in the background for the REST API ({@code provbench serve}): one at a time, each on its own
 * thread, logging its progress.
 */
@ApplicationScoped
public class RunLauncher {
    private static final Logger LOG = Logger.getLogger(RunLauncher.class);

    /** The run that kept a new one from starting. */
    public static final class Busy extends RuntimeException {
        private final String activeId;

        Busy(RunExecution active) {
            this("run " + active.id() + " is " + active.state().json() + "; one run at a time", active.id());
        }

        public Busy(String message, String activeId) {
            super(message);
            this.activeId = activeId;
        }

        /** The run or sweep that is active. */
        public String activeId() {
            return activeId;
        }
    }

    private final RunExecutor executor;
    private final RunRegistry registry;
    private final RunLimits limits;
    private volatile boolean enabled;

    public RunLauncher(RunExecutor executor, RunRegistry registry, RunLimits limits) {
        this.executor = executor;
        this.registry = registry;
        this.limits = limits;
    }

    /** {@code provbench serve} accepts runs; {@code driver} and {@code run} processes do not. */
    public void enable() {
        enabled = true;
    }

    /** For tests: back to not accepting runs. */
    public void disable() {
        enabled = false;
    }

    public boolean enabled() {
        return enabled;
    }

    static String summary(RunExecution e) {
        StringBuilder b = new StringBuilder("run ").append(e.id()).append(": ").append(e.state().json());
        if (e.message() != null) {
            b.append(" (").append(e.message()).append(')');
        }
        var r = e.report();
        if (r != null) {
            var o = r.section(dev.provbench.measure.Operations.OPS);
            b.append(String.format(java.util.Locale.ROOT, "; %d creates, %d deletes, %d failures, %.3f ops/s, "
                            + "%d requests, %d throttled; left over: %s", o.creates(), o.deletes(),
                    o.failures(), o.opsPerSecond(), r.section(dev.provbench.measure.ClientRequests.REQUESTS).total(),
                    r.section(dev.provbench.measure.ClientRequests.THROTTLING).throttled(),
                    r.cleanup().leftover().isEmpty() ? "none" : r.cleanup().leftover().size() + " object(s), "
                            + r.cleanup().command()));
        }
        return b.toString();
    }

    /**
     * Checks {@code request} (throws {@link RunRequest.Invalid}) and starts it, or throws {@link Busy} while
     * another run is active.
     */
    public RunExecution launch(RunRequest request) {
        RunExecution e = new RunExecution(request.check(limits.values()));
        Optional<String> sweep = registry.reservedBy();
        if (sweep.isPresent()) {
            throw new Busy("sweep " + sweep.get() + " is running; one run at a time", sweep.get());
        }
        Optional<RunExecution> other = registry.begin(e);
        if (other.isPresent()) {
            throw new Busy(other.get());
        }
        Thread t = new Thread(() -> {
            try {
                executor.execute(e, line -> LOG.info(line.startsWith("provbench run ") ? line
                        : "run " + e.id() + ": " + line));
            } finally {
                registry.end(e);
                LOG.info(summary(e));
            }
        }, "provbench-run-" + e.id());
        t.setDaemon(true);
        t.start();
        return e;
    }
}
