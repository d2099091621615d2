package dev.provbench.sweep;

import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.RunCleanup;
import dev.provbench.report.JsonFormat;
import dev.provbench.run.ExitCodes;
import dev.provbench.run.RunExecution;
import dev.provbench.run.RunExecutor;
import dev.provbench.run.RunRegistry;
import dev.provbench.util.Durations;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Carries out a {@link SweepExecution}: for each run in the plan's order, puts csi-provisioner at the cell's
 * settings (only when they change), confirms the previous run's claims are gone, runs it like
 * {@code provbench run} ({@link RunExecutor}), and rewrites the result — so an aborted or broken sweep still
 * leaves every figure it measured. csi-provisioner's settings are restored however the sweep ends.
 */
@ApplicationScoped
public class SweepExecutor {
    private final RunExecutor executor;
    private final RunRegistry registry;
    private final String version;

    public SweepExecutor(RunExecutor executor, RunRegistry registry,
            @ConfigProperty(name = "quarkus.application.version", defaultValue = "dev") String version) {
        this.executor = executor;
        this.registry = registry;
        this.version = version;
    }

    /** Where a sweep writes (the CLI's {@code --out}); null keeps everything in memory (the REST API). */
    public record Output(Path dir, String command) {
    }

    /**
     * Runs {@code s} to its end on the calling thread, holding this process's run registry for it (no other run
     * may start in between). Never throws.
     */
    public void execute(SweepExecution s, Output out, Consumer<String> say) {
        if (!registry.reserve(s.id())) {
            String other = registry.active().map(RunExecution::id).or(registry::reservedBy).orElse("?");
            s.ended(RunExecution.State.FAILED, ExitCodes.FAILED, null, "run or sweep " + other + " is active in "
                    + "this process");
            say.accept("sweep: " + s.message());
            return;
        }
        try {
            executeReserved(s, out, say);
        } finally {
            registry.release(s.id());
        }
    }

    private void executeReserved(SweepExecution s, Output out, Consumer<String> say) {
        SweepPlan plan = s.plan();
        s.begin();
        Instant started = s.started();
        say.accept(String.format(Locale.ROOT, "provbench sweep %s: %d cells × %d repeats = %d runs in a random "
                        + "order, seed %d (--seed %d repeats it); provisioner control: %s", s.id(), plan.cells().size(),
                plan.request().repeats, plan.runs(), plan.seed(), plan.seed(), plan.control().describe()));
        ProvisionerControl control = ProvisionerControl.NONE;
        String failure = null;
        SweepPlan.Cell applied = null;
        String previousRun = null;
        try {
            if (out.dir() != null) {
                Files.createDirectories(out.dir().resolve("runs"));
            }
            control = ProvisionerControl.of(plan, out.dir());
            if (out.dir() == null && control instanceof ProvisionerControl.Command c) {
                say.accept("provisioner-control: its output goes to " + c.log() + " (the sweep has no --out "
                        + "directory); that file stays");
            }
            for (SweepPlan.Planned p : plan.order()) {
                if (s.abortRequested()) {
                    break;
                }
                SweepPlan.Cell c = p.cell();
                say.accept(progressLine(s, p));
                if (c.provisionerQps() != null && (applied == null
                        || !c.provisionerQps().equals(applied.provisionerQps())
                        || !c.provisionerBurst().equals(applied.provisionerBurst()))) {
                    control.apply(c.provisionerQps(), c.provisionerBurst(), say);
                    applied = c;
                }
                if (previousRun != null) {
                    confirmGone(plan, previousRun, say);
                }
                RunExecution e = new RunExecution(p.checked());
                if (!s.runStarting(p, e)) {
                    break;
                }
                var other = registry.begin(s.id(), e);
                if (other.isPresent()) {
                    throw new IllegalStateException("run " + other.get().id() + " is active in this process");
                }
                long t0 = System.nanoTime();
                try {
                    executor.execute(e, line -> say.accept("  " + line));
                } finally {
                    registry.end(e);
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                // a local run's in-memory cluster ended with it: only a real cluster can hold leftovers
                previousRun = !p.checked().request().local && e.report() != null
                        && !e.report().cleanup().leftover().isEmpty() ? e.id() : null;
                SweepResult.Done d = new SweepResult.Done(p, e.id(), e.state().json(), e.exitCode(), e.report(), secs,
                        e.message());
                List<SweepResult.Done> all = new java.util.ArrayList<>(s.done());
                all.add(d);
                SweepResult r = SweepResult.of(plan, all, "running", started, null, version);
                s.runEnded(d, r);
                say.accept(String.format(Locale.ROOT, "sweep: run %d/%d ended: %s, exit %d%s", p.seq(), plan.runs(),
                        e.state().json(), e.exitCode(), e.report() == null ? ""
                                : String.format(Locale.ROOT, ", %.3f ops/s", e.report().section(dev.provbench.measure.Operations.OPS).opsPerSecond())));
                write(out, plan, p, d, all, r);
            }
        } catch (Exception ex) {
            failure = ex instanceof InterruptedException ? "interrupted" : message(ex);
            say.accept("sweep: " + failure);
        } finally {
            control.restore(say);
            control.close();
            removePopulation(plan, say);
        }
        List<SweepResult.Done> done = s.done();
        RunExecution.State state;
        int code;
        if (s.abortRequested()) {
            state = RunExecution.State.ABORTED;
            code = ExitCodes.FAILED;
        } else if (failure != null || done.stream().anyMatch(d -> d.exitCode() == ExitCodes.FAILED)) {
            state = RunExecution.State.FAILED;
            code = ExitCodes.FAILED;
            if (failure == null) {
                failure = done.stream().filter(d -> d.exitCode() == ExitCodes.FAILED).count() + " run(s) failed";
            }
        } else if (done.stream().anyMatch(d -> d.exitCode() == ExitCodes.THRESHOLD)) {
            state = RunExecution.State.FAILED;
            code = ExitCodes.THRESHOLD;
            failure = "a threshold failed in " + done.stream().filter(d -> d.exitCode() == ExitCodes.THRESHOLD).count()
                    + " run(s)";
        } else {
            state = RunExecution.State.SUCCEEDED;
            code = ExitCodes.OK;
        }
        SweepResult r = SweepResult.of(plan, done, state.json(), started, Instant.now(), version);
        s.ended(state, code, r, failure);
        try {
            writeSummary(out, plan, done, r);
        } catch (IOException ex) {
            say.accept("sweep: cannot write the results to " + out.dir() + ": " + ex.getMessage());
            s.ended(state, ExitCodes.FAILED, r, "cannot write the results: " + ex.getMessage());
        }
    }

    /** A real cluster's population, kept between the runs of a population axis: removed unless --keep-population. */
    private static void removePopulation(SweepPlan plan, Consumer<String> say) {
        if (plan.request().population == null || plan.request().keepPopulation || plan.base().request().local) {
            return;
        }
        var cfg = plan.base().config();
        try (KubernetesClient c = KubeClients.client(KubeClients.config(plan.base().kubeconfig()),
                RateLimiter.of(-1, 0), new RequestStats("sweep", null))) {
            say.accept("sweep: removing the population from namespace " + cfg.namespace());
            var r = dev.provbench.load.Population.remove(c, cfg.namespace(), cfg.cleanupTimeout());
            if (!r.clean()) {
                say.accept("sweep: the population's removal left " + r.left().size() + " object(s): 'provbench "
                        + "cleanup --population --namespace " + cfg.namespace() + "' removes them");
            }
        } catch (IOException | RuntimeException e) {
            say.accept("sweep: cannot remove the population: " + message(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The previous run left claims (its cleanup timed out): remove them before the next run measures. */
    private static void confirmGone(SweepPlan plan, String runId, Consumer<String> say) throws IOException {
        var cfg = plan.base().config();
        try (KubernetesClient c = KubeClients.client(KubeClients.config(plan.base().kubeconfig()),
                RateLimiter.of(-1, 0), new RequestStats("sweep", null))) {
            say.accept("sweep: run " + runId + " left objects; removing them before the next run");
            var spread = dev.provbench.load.RunNamespaces.of(cfg);
            RunCleanup.Result r = new RunCleanup(c, spread, runId, cfg.cleanupTimeout()).run();
            if (!r.clean()) {
                throw new IOException("run " + runId + " left " + r.leftover().size() + " object(s) that did not go "
                        + "within " + Durations.format(cfg.cleanupTimeout()) + ": provbench cleanup --run-id " + runId
                        + " " + spread.flags());
            }
        }
    }

    static String progressLine(SweepExecution s, SweepPlan.Planned p) {
        SweepExecution.Progress g = s.progress();
        return String.format(Locale.ROOT, "sweep: run %d/%d · cell %d (%s) repeat %d/%d · %d run(s) left after this"
                        + " · ETA %s", p.seq(), g.runs(), p.cell().index(), p.cell().label(s.plan().varying()),
                p.repeat(), s.plan().request().repeats, g.runs() - p.seq(),
                g.etaSeconds() == null ? "after the first run" : eta(Math.round(g.etaSeconds())));
    }

    /** After each run: its report, and every summary file as it stands. */
    /** "1h02m", "20m21s", "45s". */
    static String eta(long seconds) {
        long h = seconds / 3600;
        long m = seconds % 3600 / 60;
        long sec = seconds % 60;
        return h > 0 ? String.format(Locale.ROOT, "%dh%02dm", h, m) : m > 0
                ? String.format(Locale.ROOT, "%dm%02ds", m, sec) : sec + "s";
    }

    private static void write(Output out, SweepPlan plan, SweepPlan.Planned p, SweepResult.Done d,
                              List<SweepResult.Done> all, SweepResult r) throws IOException {
        if (out.dir() == null) {
            return;
        }
        if (d.report() != null) {
            Files.writeString(out.dir().resolve(SweepResult.file(p)), new JsonFormat().render(d.report()));
        }
        writeSummary(out, plan, all, r);
    }

    private static void writeSummary(Output out, SweepPlan plan, List<SweepResult.Done> done, SweepResult r)
            throws IOException {
        if (out.dir() == null) {
            return;
        }
        Files.createDirectories(out.dir());
        Files.writeString(out.dir().resolve("sweep.json"), SweepFormats.json(r));
        Files.writeString(out.dir().resolve("sweep.bench"), SweepResult.bench(plan, done));
        Files.writeString(out.dir().resolve("sweep.md"), SweepFormats.markdown(r, out.command()));
        Files.writeString(out.dir().resolve("sweep.html"), SweepFormats.html(r, out.command()));
    }

    private static String message(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t + ")";
    }
}
