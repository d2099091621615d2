package dev.provbench.csi.state;

/**
 * Bounds of the mock backend; 0 means unlimited (except {@code defaultVolumeSize}).
 */
public record Limits(long defaultVolumeSize, long maxVolumeSize, long totalCapacity, long maxVolumes,
                     long maxSnapshots, long maxVolumesPerNode) {
    public Limits {
        if (defaultVolumeSize <= 0) {
            throw new IllegalArgumentException("defaultVolumeSize must be positive");
        }
        for (long v : new long[]{maxVolumeSize, totalCapacity, maxVolumes, maxSnapshots, maxVolumesPerNode}) {
            if (v < 0) {
                throw new IllegalArgumentException("limits cannot be negative (0 means unlimited)");
            }
        }
    }
}
