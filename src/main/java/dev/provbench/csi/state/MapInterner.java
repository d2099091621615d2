package dev.provbench.csi.state;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One shared, immutable copy of each distinct parameter map, so that 100,000 volumes created with the same
 * StorageClass parameters hold one map, not 100,000 copies of its strings (csi-provisioner sends the same
 * parameters for every claim of a class). Bounded: once the maps it keeps hold {@code maxBytes} (counted as
 * {@link VolumeStore#unsharedBytes} counts them), further distinct maps are copied, not kept — a client that sends a
 * new map every time cannot grow it.
 */
final class MapInterner {
    private final ConcurrentHashMap<Map<String, String>, Map<String, String>> maps = new ConcurrentHashMap<>();
    private final AtomicLong bytes = new AtomicLong();
    private final long maxBytes;

    MapInterner(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    Map<String, String> intern(Map<String, String> m) {
        if (m.isEmpty()) {
            return Map.of();
        }
        Map<String, String> shared = maps.get(m);
        if (shared != null) {
            return shared;
        }
        Map<String, String> copy = Map.copyOf(m);
        long size = VolumeStore.unsharedBytes("", copy, Map.of());
        if (bytes.addAndGet(size) > maxBytes) {
            bytes.addAndGet(-size);
            return copy;
        }
        shared = maps.putIfAbsent(copy, copy);
        if (shared != null) {
            bytes.addAndGet(-size);
            return shared;
        }
        return copy;
    }

    /** Whether {@code m} is the shared copy (kept for good: whatever holds it holds nothing of its own). */
    boolean isShared(Map<String, String> m) {
        return !m.isEmpty() && maps.get(m) == m;
    }

    int size() {
        return maps.size();
    }
}
