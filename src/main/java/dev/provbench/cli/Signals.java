package dev.provbench.cli;

import sun.misc.Signal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * SIGTERM and SIGINT handled by the command instead of the JVM, whose default exits 143/130 once the shutdown
 * hooks ran — which would lose the exit code the README promises (3 for an aborted run, 0 for a driver or
 * server stopped as asked).
 */
final class Signals {
    private Signals() {
    }

    /** Calls {@code action} with the signal's name (TERM, INT) on each; the returned handle restores the old ones. */
    static Runnable onStop(Consumer<String> action) {
        List<Runnable> restore = new ArrayList<>();
        for (String name : new String[]{"TERM", "INT"}) {
            try {
                Signal signal = new Signal(name);
                var previous = Signal.handle(signal, s -> action.accept(s.getName()));
                restore.add(() -> Signal.handle(signal, previous));
            } catch (IllegalArgumentException e) {
                // the signal is not available here (or the JVM reserves it, -Xrs): the default stays
            }
        }
        return () -> restore.forEach(Runnable::run);
    }
}
