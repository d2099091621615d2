package dev.provbench.csi.state;

import java.time.Instant;

public record Snapshot(String id, String name, String sourceVolumeId, long sizeBytes, Instant createdAt, long seq) {
}
