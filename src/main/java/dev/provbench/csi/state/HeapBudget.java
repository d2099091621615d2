package dev.provbench.csi.state;

/**
 * The default limits that follow the heap, so that a driver fills up with RESOURCE_EXHAUSTED answers, never
 * an OutOfMemoryError: {@code limits.max-volumes} and {@code limits.max-held-bytes}, when not configured,
 * come from the JVM's max heap. {@link #RESERVED} is kept for everything but the volumes (Quarkus, gRPC
 * buffers, the HTTP server); of the rest, volumes at {@link #BYTES_PER_VOLUME} each may take
 * {@link #VOLUME_SHARE}, and names and parameters ({@link VolumeStore#heldBytes()}) {@link #HELD_SHARE} —
 * the two overlap (a volume's measured bytes include a typical request's name and parameters), so together
 * they stay under the heap even when requests carry the most parameters the driver accepts.
 * {@code hack/bench/driver-memory} measures the bytes per volume; {@code docs/benchmarks.md} has the figures.
 */
public final class HeapBudget {
    /**
     * Live heap per volume created by a typical csi-provisioner request (a 40-character name, one capability,
     * two parameters, a capacity): {@code hack/bench/driver-memory} measured 353 bytes at 100,000 volumes (the
     * parameter map shared, {@link MapInterner}); with a margin of almost half again.
     */
    public static final long BYTES_PER_VOLUME = 512;
    /** Heap kept for the rest of the process: twice the idle driver's live heap (11.9 MiB measured). */
    public static final long RESERVED = 24L << 20;
    static final double VOLUME_SHARE = 0.6;
    static final double HELD_SHARE = 0.3;

    private HeapBudget() {
    }

    /** The heap the store may use: the max heap less {@link #RESERVED}, at least an eighth of it. */
    static long usable(long maxHeap) {
        return Math.max(maxHeap / 8, maxHeap - RESERVED);
    }

    public static long maxVolumes(long maxHeap) {
        return Math.max(1, (long) (usable(maxHeap) * VOLUME_SHARE / BYTES_PER_VOLUME));
    }

    public static long maxHeldBytes(long maxHeap) {
        return Math.max(64 << 10, (long) (usable(maxHeap) * HELD_SHARE));
    }
}
