package dev.provbench.util;

import io.quarkus.bootstrap.runner.RunnerClassLoader;

/**
 * What Quarkus does for a long-lived application once it has started, and skips for a command-mode one like ours:
 * {@code ApplicationLifecycleManager} calls {@link RunnerClassLoader#resetInternalCaches()} only when there is no
 * {@code QuarkusApplication} to run. Until then the class loader keeps every jar it has read from open, each with
 * its central directory on the heap (an idle driver: 142 jars, 2.4 MiB of {@code ZipFile$Source.cen}); after it,
 * it closes them and keeps only the few it read from last (docs/benchmarks.md). Called by the {@code driver} role
 * once it serves: the classes it loads later (for its first calls) come from jars opened again, ~90 opens once.
 * Not in {@code run} or {@code serve}: the classes a run loads after its start opened jars ~2,500 times more in a
 * 10 s {@code run --local}, which cost more CPU than the 3 MiB are worth there.
 */
public final class PostBoot {

    private PostBoot() {
    }

    /** Closes the class loader's jars; nothing where it is not Quarkus' production loader (tests, dev mode). */
    public static void releaseClassLoaderCaches() {
        if (PostBoot.class.getClassLoader() instanceof RunnerClassLoader runner) {
            runner.resetInternalCaches();
        }
    }
}
