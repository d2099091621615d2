package dev.provbench;

import dev.provbench.run.RunExecution;
import dev.provbench.run.RunRegistry;
import dev.provbench.sweep.SweepExecution;
import dev.provbench.sweep.SweepLauncher;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcContainer;
import io.quarkus.test.junit.callback.QuarkusTestAfterEachCallback;
import io.quarkus.test.junit.callback.QuarkusTestMethodContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The suite's own check, after every test of every {@code @QuarkusTest} class (registered in
 * {@code META-INF/services}): no run or sweep outlives the test that started it. One still going is aborted and
 * awaited (within its own limits, {@link RunBounds}), and the test that left it fails naming it — so a failure stays
 * in that test instead of turning the next ones red (a 409 from a held registry, a store another run is emptying).
 * Finally the registry must be idle: no active run, no sweep holding it.
 */
public final class NoRunOutlivesItsTest implements QuarkusTestAfterEachCallback {
    @Override
    public void afterEach(QuarkusTestMethodContext context) {
        ArcContainer arc = Arc.container();
        if (arc == null || !arc.isRunning()) {
            return;
        }
        RunRegistry registry = arc.instance(RunRegistry.class).get();
        SweepLauncher sweeps = arc.instance(SweepLauncher.class).get();
        List<String> left = new ArrayList<>();
        Duration bound = RunBounds.MARGIN;
        for (SweepExecution s : sweeps.all()) {
            RunExecution current = s.current();
            if (s.abort()) {
                left.add("sweep " + s.id());
                if (current != null) {
                    bound = max(bound, RunBounds.afterAbort(current.checked().config()));
                }
            }
        }
        for (RunExecution e : registry.all()) {
            if (e.abort()) {
                left.add("run " + e.id());
                bound = max(bound, RunBounds.afterAbort(e.checked().config()));
            }
        }
        // a run that has just ended leaves the registry a moment later (RunLauncher's finally), so always wait
        long deadline = System.nanoTime() + bound.toNanos();
        while ((registry.active().isPresent() || registry.reservedBy().isPresent()
                || sweeps.all().stream().anyMatch(s -> !s.state().ended())) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        String test = context.getTestInstance().getClass().getSimpleName() + "." + context.getTestMethod().getName();
        if (!left.isEmpty()) {
            throw new AssertionError(test + " ended while " + String.join(", ", left) + " still ran; aborted it "
                    + "(a test ends what it starts: abort and await in a finally)");
        }
        if (registry.active().isPresent() || registry.reservedBy().isPresent()) {
            throw new AssertionError("after " + test + " the run registry is not idle within " + bound.toSeconds()
                    + " s: active " + registry.active().map(RunExecution::id).orElse("none") + ", reserved by "
                    + registry.reservedBy().orElse("nobody"));
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
