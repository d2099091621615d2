package dev.provbench.load;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Other tenants of the run's provisioner, as the run's own PV watch sees them ({@link Waits}): PVs of claims the
 * run did not make that are of the run's StorageClass or of its driver ({@code spec.csi.driver} = the class's
 * provisioner), counted when they appear (csi-provisioner made one for another claim) and when they go (it deleted
 * one). Counted from the watch's start; a measurement reads the counts at the window's edges, as it reads any
 * counter. A PV of the run's own is one whose claim is in one of the run's namespaces and named by the run
 * ({@code pb-<run id>-…}).
 */
public final class Tenants {
    /** StorageClasses told apart in {@link Count#byStorageClass}; the rest are summed under {@link #OTHER}. */
    static final int MAX_CLASSES = 16;
    static final String OTHER = "(other classes)";

    /**
     * @param appeared        PVs of other claims that appeared
     * @param gone            PVs of other claims that went
     * @param byStorageClass  {@code appeared} by StorageClass ({@code ""}: none named)
     */
    public record Count(long appeared, long gone, Map<String, Long> byStorageClass) {
    }

    private final RunNamespaces namespaces;
    private final String claimPrefix;
    private final String storageClass;
    private volatile String driver;
    private final LongAdder appeared = new LongAdder();
    private final LongAdder gone = new LongAdder();
    private final Map<String, LongAdder> byClass = new ConcurrentHashMap<>();

    Tenants(RunNamespaces namespaces, String runId, String storageClass) {
        this.namespaces = namespaces;
        this.claimPrefix = "pb-" + runId + "-";
        this.storageClass = storageClass;
    }

    /** The driver of the run's StorageClass (its provisioner), once the preflight has read it; null: by class only. */
    public void driver(String name) {
        driver = name;
    }

    /** The driver of the run's StorageClass, or null before the preflight read it. */
    public String driver() {
        return driver;
    }

    public String storageClass() {
        return storageClass;
    }

    /** Whether the PV is for one of the run's own claims. */
    boolean own(Views.Volume v) {
        return namespaces.contains(v.claimNamespace()) && v.claimName() != null && v.claimName().startsWith(claimPrefix);
    }

    private boolean sameProvisioner(Views.Volume v) {
        String d = driver;
        return storageClass.equals(v.storageClass()) || d != null && d.equals(v.driver());
    }

    void appeared(Views.Volume v) {
        if (own(v) || !sameProvisioner(v)) {
            return;
        }
        appeared.increment();
        String sc = v.storageClass() == null ? "" : v.storageClass();
        LongAdder n = byClass.get(sc);
        if (n == null) {
            n = byClass.size() < MAX_CLASSES ? byClass.computeIfAbsent(sc, k -> new LongAdder())
                    : byClass.computeIfAbsent(OTHER, k -> new LongAdder());
        }
        n.increment();
    }

    void gone(Views.Volume v) {
        if (!own(v) && sameProvisioner(v)) {
            gone.increment();
        }
    }

    /** The counts so far. */
    public Count read() {
        Map<String, Long> classes = new TreeMap<>();
        byClass.forEach((k, v) -> classes.put(k, v.sum()));
        return new Count(appeared.sum(), gone.sum(), classes);
    }
}
