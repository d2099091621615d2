package dev.provbench.load;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The registry of workloads ({@code --mode}): a workload is one file (its {@link Workload}) plus one line here, its
 * name and its factory from the run's settings.
 */
public final class Workloads {
    private static final Map<String, Function<RunConfig, Workload>> REGISTRY = new LinkedHashMap<>();

    static {
        REGISTRY.put(ChurnWorkload.NAME, ChurnWorkload::new);
        REGISTRY.put(BulkWorkload.NAME, BulkWorkload::new);
    }

    private Workloads() {
    }

    /** The names {@code --mode} takes, in registry order (the first is the default). */
    public static List<String> names() {
        return List.copyOf(REGISTRY.keySet());
    }

    /** The workload of {@code config.mode()}; throws if there is none of that name. */
    public static Workload of(RunConfig config) {
        var f = REGISTRY.get(config.mode());
        if (f == null) {
            throw new IllegalArgumentException("no workload '" + config.mode() + "'; one of " + names());
        }
        return f.apply(config);
    }
}
