package dev.provbench.csi.state;

/**
 * Bounds of the mock backend; 0 means unlimited (except {@code defaultVolumeSize}).
 *
 * @param maxHeldBytes the most bytes of names, parameters and mutable parameters (the volume context is the
 *                     parameters) the volumes and snapshots that exist may hold together: with
 *                     {@code maxVolumes} it bounds the heap the store can take
 */
public record Limits(long defaultVolumeSize, long maxVolumeSize, long totalCapacity, long maxVolumes,
                     long maxSnapshots, long maxVolumesPerNode, long maxHeldBytes) {
    public Limits {
        if (defaultVolumeSize <= 0) {
            throw new IllegalArgumentException("defaultVolumeSize must be positive");
        }
        for (long v : new long[]{maxVolumeSize, totalCapacity, maxVolumes, maxSnapshots, maxVolumesPerNode,
                maxHeldBytes}) {
            if (v < 0) {
                throw new IllegalArgumentException("limits cannot be negative (0 means unlimited)");
            }
        }
    }
}
