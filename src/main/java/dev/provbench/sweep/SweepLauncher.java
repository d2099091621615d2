package dev.provbench.sweep;

import dev.provbench.run.RunLauncher;
import dev.provbench.run.RunLimits;
import dev.provbench.run.RunRegistry;
import dev.provbench.run.RunRequest;
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

/**
 * Sweeps over the REST API ({@code provbench serve}): one at a time (and never beside a run), each on its own
 * thread, the last {@value #KEPT} kept with their results. On shutdown the active sweep is aborted before the
 * run registry waits for its run's cleanup.
 */
@ApplicationScoped
public class SweepLauncher {
    private static final Logger LOG = Logger.getLogger(SweepLauncher.class);
    static final int KEPT = 20;

    private final SweepExecutor executor;
    private final RunRegistry runs;
    private final RunLauncher runLauncher;
    private final RunLimits limits;
    private final Map<String, SweepExecution> sweeps = new LinkedHashMap<>();

    public SweepLauncher(SweepExecutor executor, RunRegistry runs, RunLauncher runLauncher, RunLimits limits) {
        this.executor = executor;
        this.runs = runs;
        this.runLauncher = runLauncher;
        this.limits = limits;
    }

    public boolean enabled() {
        return runLauncher.enabled();
    }

    /**
     * Checks {@code q} (throws {@link RunRequest.Invalid}) and starts it, or throws {@link RunLauncher.Busy}.
     * A command as provisioner control is refused here: over the API it would run any program as this server.
     */
    public synchronized SweepExecution launch(SweepRequest q, Map<String, String> env) {
        if (q.provisionerControl != null && q.provisionerControl.startsWith("command:")) {
            throw new RunRequest.Invalid("provisionerControl", "command: runs a program on the server; over the "
                    + "API only stand-in and deployment:NAMESPACE/NAME[/CONTAINER] are accepted");
        }
        if (q.run != null) {
            q.run.checkFromApi(env);
        }
        SweepPlan plan = SweepPlan.of(q, limits.values(), env);
        SweepExecution s = new SweepExecution(plan);
        Optional<String> other = runs.reservedBy().or(() -> runs.active().map(r -> r.id()));
        if (other.isPresent()) {
            throw new RunLauncher.Busy("run or sweep " + other.get() + " is active; one at a time", other.get());
        }
        sweeps.put(s.id(), s);
        while (sweeps.size() > KEPT) {
            sweeps.remove(sweeps.keySet().iterator().next());
        }
        Thread t = new Thread(() -> {
            executor.execute(s, new SweepExecutor.Output(null, null), line -> LOG.info(line.startsWith("  ")
                    ? "sweep " + s.id() + ":" + line : line));
            LOG.infof("sweep %s: %s%s", s.id(), s.state().json(), s.message() == null ? "" : " (" + s.message() + ")");
        }, "provbench-sweep-" + s.id());
        t.setDaemon(true);
        t.start();
        return s;
    }

    public synchronized Optional<SweepExecution> get(String id) {
        return Optional.ofNullable(sweeps.get(id));
    }

    /** Newest first. */
    public synchronized List<SweepExecution> all() {
        List<SweepExecution> out = new ArrayList<>(sweeps.values());
        java.util.Collections.reverse(out);
        return out;
    }

    void onShutdown(@Observes @Priority(0) ShutdownEvent event) {
        for (SweepExecution s : all()) {
            if (s.abort()) {
                LOG.infof("stopping: aborting sweep %s", s.id());
            }
        }
    }
}
