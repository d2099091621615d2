package dev.provbench.evidence;

import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the mock driver's own counters: volumes created and deleted, every call answered by method and code,
 * the faults it injected by method and code, and its process start time (a change means it restarted). The
 * counters restart from 0 with the driver; {@link CounterTrack} makes increases of them.
 */
public interface DriverCounts {
    /** Volumes the driver created (idempotent repeats not counted). */
    String VOLUMES_CREATED = "volumesCreated";
    /** Volumes the driver deleted (deletes of unknown IDs not counted). */
    String VOLUMES_DELETED = "volumesDeleted";

    /** The counter of calls to {@code method} answered with {@code code} (injected faults included). */
    static String calls(String method, String code) {
        return "calls " + method + " " + code;
    }

    /** The counter of faults with {@code code} injected into {@code method}. */
    static String injected(String method, String code) {
        return "injected " + method + " " + code;
    }

    /**
     * One read: counters by name ({@link #calls}, {@link #injected}, the two volume counters); {@code name}: the
     * driver's name (GetPluginInfo's), null when not told.
     */
    record Read(Map<String, Double> counters, double startTime, String name) {
        public Read(Map<String, Double> counters, double startTime) {
            this(counters, startTime, null);
        }

        public Read withName(String n) {
            return new Read(counters, startTime, n);
        }
    }

    /** A read from the driver's parts: calls as method → code → count, injected as "Method/CODE" → count. */
    static Read of(long created, long deleted, Map<String, Map<String, Long>> calls, Map<String, Long> injected,
            double startTime) {
        Map<String, Double> c = new TreeMap<>();
        c.put(VOLUMES_CREATED, (double) created);
        c.put(VOLUMES_DELETED, (double) deleted);
        calls.forEach((m, codes) -> codes.forEach((code, n) -> c.put(calls(m, code), n.doubleValue())));
        injected.forEach((k, n) -> {
            int slash = k.indexOf('/');
            if (slash > 0) {
                c.put(injected(k.substring(0, slash), k.substring(slash + 1)), n.doubleValue());
            }
        });
        return new Read(c, startTime);
    }

    Read read() throws Exception;

    /** How the counts are read, for the report. */
    String source();
}
