package dev.provbench.csi.state;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import static dev.provbench.csi.state.StateException.Reason.ALREADY_EXISTS;
import static dev.provbench.csi.state.StateException.Reason.FAILED_PRECONDITION;
import static dev.provbench.csi.state.StateException.Reason.NOT_FOUND;
import static dev.provbench.csi.state.StateException.Reason.OUT_OF_RANGE;
import static dev.provbench.csi.state.StateException.Reason.RESOURCE_EXHAUSTED;

/**
 * The mock backend: volumes and snapshots in memory. Lock-free: lookups by ID and by name are hash-map
 * operations, limits are enforced with compare-and-set on two counters, and a volume's changes are
 * atomic replacements of an immutable record. Listings walk a skip list ordered by creation, so a page
 * token (the position of the next entry) stays valid when entries before it are deleted.
 */
public final class VolumeStore {

    /** What CreateVolume asks for; {@code required}/{@code limit} are the capacity range (0 = unset). */
    public record CreateSpec(String name, long required, long limit, Map<String, String> parameters,
                             Map<String, String> mutableParameters, Source source) {
    }

    /** A create's result and whether it made a new volume (false: the name already existed). */
    public record Created(Volume volume, boolean isNew) {
    }

    private final Clock clock;
    private final AtomicReference<Limits> limits;
    private final AtomicLong seq = new AtomicLong();

    private final ConcurrentHashMap<String, Volume> volumesById = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Volume> volumesByName = new ConcurrentHashMap<>();
    private final ConcurrentSkipListMap<Long, String> volumeOrder = new ConcurrentSkipListMap<>();
    private final AtomicLong volumeCount = new AtomicLong();
    private final java.util.concurrent.atomic.LongAdder volumesCreated = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder volumesDeleted = new java.util.concurrent.atomic.LongAdder();
    private final AtomicLong usedBytes = new AtomicLong();
    private final AtomicLong heldBytes = new AtomicLong();
    /** Parameter maps shared by the volumes that were created with equal ones; at most 1 MiB of them. */
    private final MapInterner parameterMaps = new MapInterner(1 << 20);

    private final ConcurrentHashMap<String, Snapshot> snapshotsById = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Snapshot> snapshotsByName = new ConcurrentHashMap<>();
    private final ConcurrentSkipListMap<Long, String> snapshotOrder = new ConcurrentSkipListMap<>();
    private final AtomicLong snapshotCount = new AtomicLong();

    private final ConcurrentHashMap<String, AtomicLong> attachedPerNode = new ConcurrentHashMap<>();

    public VolumeStore(Limits limits, Clock clock) {
        this.limits = new AtomicReference<>(Objects.requireNonNull(limits));
        this.clock = clock;
    }

    /**
     * A volume ID: 64 random bits as 16 hex digits (a compact String: 56 bytes on the heap against a UUID's 80);
     * unique among the volumes that exist, since {@link #create} retries on the (2^-64) collision.
     */
    static String newId() {
        String hex = Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());
        return hex.length() == 16 ? hex : "0".repeat(16 - hex.length()) + hex;
    }

    public Limits limits() {
        return limits.get();
    }

    public void setLimits(Limits newLimits) {
        limits.set(Objects.requireNonNull(newLimits));
    }

    public long volumeCount() {
        return volumeCount.get();
    }

    public long usedBytes() {
        return usedBytes.get();
    }

    /** Bytes of names, parameters and mutable parameters the volumes and snapshots that exist hold ({@link #held}). */
    public long heldBytes() {
        return heldBytes.get();
    }

    /**
     * What a volume holds against {@link Limits#maxHeldBytes()}: its name and parameters as the heap keeps
     * them — each string its UTF-8 length plus {@link #STRING_OVERHEAD}, each parameter another
     * {@link #ENTRY_OVERHEAD} — so that many tiny parameters cost what they cost, not their few characters. A
     * parameter map the volume shares with others ({@link MapInterner}) is held once, by the interner, within its
     * own bound, and costs the volume nothing.
     */
    long held(Volume v) {
        return held(v.name(), v.parameters(), v.mutableParameters());
    }

    private long held(String name, Map<String, String> parameters, Map<String, String> mutable) {
        return unsharedBytes(name, parameterMaps.isShared(parameters) ? Map.of() : parameters,
                parameterMaps.isShared(mutable) ? Map.of() : mutable);
    }

    /** A String's header and array header on a 64-bit JVM with compressed references, rounded up. */
    static final long STRING_OVERHEAD = 48;
    /** A map entry's share of an immutable or hash map (slots, entry object), rounded up. */
    static final long ENTRY_OVERHEAD = 32;

    /** The bytes of a name and two maps, none shared. */
    static long unsharedBytes(String name, Map<String, String> parameters, Map<String, String> mutable) {
        long n = text(name);
        for (Map<String, String> m : List.of(parameters, mutable)) {
            for (Map.Entry<String, String> e : m.entrySet()) {
                n += ENTRY_OVERHEAD + text(e.getKey()) + text(e.getValue());
            }
        }
        return n;
    }

    private static long text(String s) {
        return STRING_OVERHEAD + utf8(s);
    }

    private static long utf8(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return n;
    }

    private void reserveHeld(long bytes, Limits l) {
        if (!tryIncrement(heldBytes, bytes, l.maxHeldBytes())) {
            throw new StateException(RESOURCE_EXHAUSTED, "the driver holds " + heldBytes.get() + " bytes of names "
                    + "and parameters, and " + bytes + " more would pass its limit of " + l.maxHeldBytes()
                    + " (limits.max-held-bytes)");
        }
    }

    /** Volumes ever created (idempotent repeats of a create not counted). */
    public long volumesCreated() {
        return volumesCreated.sum();
    }

    /** Volumes ever deleted (deletes of unknown IDs not counted). */
    public long volumesDeleted() {
        return volumesDeleted.sum();
    }

    public long snapshotCount() {
        return snapshotCount.get();
    }

    /** Capacity left, or -1 when the total is unlimited. */
    public long availableBytes() {
        long total = limits.get().totalCapacity();
        return total == 0 ? -1 : Math.max(0, total - usedBytes.get());
    }

    // ---------------------------------------------------------------- volumes

    public Created create(CreateSpec spec) {
        Volume existing = volumesByName.get(spec.name());
        if (existing != null) {
            return new Created(checkCompatible(existing, spec), false);
        }
        Limits l = limits.get();
        long size = sizeFor(spec, l);
        Map<String, String> parameters = parameterMaps.intern(spec.parameters());
        Map<String, String> mutable = parameterMaps.intern(spec.mutableParameters());
        long held = held(spec.name(), parameters, mutable);
        reserveVolume(size, l);
        try {
            reserveHeld(held, l);
        } catch (StateException e) {
            release(size);
            throw e;
        }
        Volume fresh;
        do {
            fresh = new Volume(newId(), spec.name(), size, parameters, mutable, spec.source(), seq.incrementAndGet(),
                    Map.of(), null, Map.of());
            // Visible by ID before by name, so whoever gets this ID from either path finds the volume.
        } while (volumesById.putIfAbsent(fresh.id(), fresh) != null);
        Volume winner = volumesByName.putIfAbsent(spec.name(), fresh);
        if (winner != null) {
            volumesById.remove(fresh.id());
            release(size);
            heldBytes.addAndGet(-held);
            return new Created(checkCompatible(winner, spec), false);
        }
        volumeOrder.put(fresh.seq(), fresh.id());
        volumesCreated.increment();
        return new Created(fresh, true);
    }

    private long sizeFor(CreateSpec spec, Limits l) {
        long size = spec.required() > 0 ? spec.required()
                : spec.limit() > 0 ? Math.min(l.defaultVolumeSize(), spec.limit()) : l.defaultVolumeSize();
        if (spec.source() != null) {
            long sourceSize = sourceSize(spec.source());
            if (size < sourceSize) {
                if (spec.limit() > 0 && spec.limit() < sourceSize) {
                    throw new StateException(OUT_OF_RANGE, "the source " + spec.source().id() + " holds " + sourceSize
                            + " bytes, more than the limit of " + spec.limit());
                }
                size = sourceSize;
            }
        }
        long max = l.maxVolumeSize();
        if (max > 0 && size > max) {
            if (spec.required() > max) {
                throw new StateException(OUT_OF_RANGE, "required_bytes " + spec.required()
                        + " exceeds the maximum volume size " + max);
            }
            size = max;
        }
        return size;
    }

    private long sourceSize(Source source) {
        return switch (source.kind()) {
            case SNAPSHOT -> {
                Snapshot s = snapshotsById.get(source.id());
                if (s == null) {
                    throw new StateException(NOT_FOUND, "source snapshot " + source.id() + " does not exist");
                }
                yield s.sizeBytes();
            }
            case VOLUME -> {
                Volume v = volumesById.get(source.id());
                if (v == null) {
                    throw new StateException(NOT_FOUND, "source volume " + source.id() + " does not exist");
                }
                yield v.capacityBytes();
            }
        };
    }

    private static Volume checkCompatible(Volume v, CreateSpec spec) {
        if (spec.required() > 0 && v.capacityBytes() < spec.required()
                || spec.limit() > 0 && v.capacityBytes() > spec.limit()) {
            throw new StateException(ALREADY_EXISTS, "volume '" + v.name() + "' exists with " + v.capacityBytes()
                    + " bytes, outside the requested range [" + spec.required() + ", "
                    + (spec.limit() == 0 ? "unlimited" : spec.limit()) + "]");
        }
        if (!v.parameters().equals(spec.parameters())) {
            throw new StateException(ALREADY_EXISTS, "volume '" + v.name() + "' exists with other parameters");
        }
        if (!Objects.equals(v.source(), spec.source())) {
            throw new StateException(ALREADY_EXISTS, "volume '" + v.name() + "' exists with another content source");
        }
        return v;
    }

    private void reserveVolume(long size, Limits l) {
        if (!tryIncrement(volumeCount, 1, l.maxVolumes())) {
            throw new StateException(RESOURCE_EXHAUSTED, "volume limit of " + l.maxVolumes() + " reached"
                    + " (limits.max-volumes)");
        }
        if (!tryIncrement(usedBytes, size, l.totalCapacity())) {
            volumeCount.decrementAndGet();
            throw new StateException(RESOURCE_EXHAUSTED, "not enough capacity: " + size + " bytes requested, "
                    + Math.max(0, l.totalCapacity() - usedBytes.get()) + " of " + l.totalCapacity() + " available");
        }
    }

    private void release(long size) {
        volumeCount.decrementAndGet();
        usedBytes.addAndGet(-size);
    }

    /** Adds {@code delta} unless that passes {@code max} (0 = unlimited). */
    private static boolean tryIncrement(AtomicLong counter, long delta, long max) {
        if (max == 0) {
            counter.addAndGet(delta);
            return true;
        }
        while (true) {
            long cur = counter.get();
            if (cur + delta > max) {
                return false;
            }
            if (counter.compareAndSet(cur, cur + delta)) {
                return true;
            }
        }
    }

    public Optional<Volume> volume(String id) {
        return Optional.ofNullable(volumesById.get(id));
    }

    /** Deletes a volume; false if there was none (which CSI treats as success). */
    public boolean delete(String id) {
        Volume v = volumesById.remove(id);
        if (v == null) {
            return false;
        }
        volumesByName.remove(v.name(), v);
        volumeOrder.remove(v.seq());
        v.publishedNodes().keySet().forEach(this::detached);
        // capacity may have changed since creation: release what the record holds now
        volumeCount.decrementAndGet();
        usedBytes.addAndGet(-v.capacityBytes());
        heldBytes.addAndGet(-held(v));
        volumesDeleted.increment();
        return true;
    }

    public Page<Volume> listVolumes(String startingToken, int maxEntries) {
        return page(volumeOrder, volumesById, startingToken, maxEntries, v -> true);
    }

    /** Grows a volume to {@code required} bytes; a smaller request leaves it as it is. */
    public Volume expand(String id, long required, long limit) {
        Limits l = limits.get();
        if (l.maxVolumeSize() > 0 && required > l.maxVolumeSize()) {
            throw new StateException(OUT_OF_RANGE, "required_bytes " + required + " exceeds the maximum volume size "
                    + l.maxVolumeSize());
        }
        return update(id, v -> {
            if (limit > 0 && v.capacityBytes() > limit) {
                throw new StateException(OUT_OF_RANGE, "volume already holds " + v.capacityBytes()
                        + " bytes, more than limit_bytes " + limit);
            }
            if (required <= v.capacityBytes()) {
                return v;
            }
            long delta = required - v.capacityBytes();
            if (!tryIncrement(usedBytes, delta, l.totalCapacity())) {
                throw new StateException(RESOURCE_EXHAUSTED, "not enough capacity to grow by " + delta + " bytes");
            }
            return v.withCapacity(required);
        });
    }

    /** Merges mutable parameters in; what they add to the held bytes counts (ModifyVolume's 4 KiB bound it). */
    public Volume modify(String id, Map<String, String> mutableParameters) {
        return update(id, v -> {
            Map<String, String> merged = new HashMap<>(v.mutableParameters());
            merged.putAll(mutableParameters);
            Volume next = v.withMutableParameters(merged);
            heldBytes.addAndGet(held(next) - held(v));
            return next;
        });
    }

    private interface Change {
        Volume apply(Volume v);
    }

    private Volume update(String id, Change change) {
        Volume updated = volumesById.computeIfPresent(id, (k, v) -> {
            Volume next = change.apply(v);
            if (next != v) {
                volumesByName.replace(v.name(), v, next);
            }
            return next;
        });
        if (updated == null) {
            throw new StateException(NOT_FOUND, "volume " + id + " does not exist");
        }
        return updated;
    }

    // ------------------------------------------------------- controller publish

    public Volume controllerPublish(String id, String nodeId, boolean readonly, boolean singleNode) {
        return update(id, v -> {
            Boolean current = v.publishedNodes().get(nodeId);
            if (current != null) {
                if (current != readonly) {
                    throw new StateException(ALREADY_EXISTS, "volume " + id + " is already published to node "
                            + nodeId + " with readonly=" + current);
                }
                return v;
            }
            if (singleNode && !v.publishedNodes().isEmpty()) {
                throw new StateException(FAILED_PRECONDITION, "volume " + id + " is single-node and published to "
                        + v.publishedNodes().keySet());
            }
            long max = limits.get().maxVolumesPerNode();
            if (!tryIncrement(attachedPerNode.computeIfAbsent(nodeId, n -> new AtomicLong()), 1, max)) {
                throw new StateException(RESOURCE_EXHAUSTED, "node " + nodeId + " already has the maximum of "
                        + max + " volumes published");
            }
            Map<String, Boolean> nodes = new HashMap<>(v.publishedNodes());
            nodes.put(nodeId, readonly);
            return v.withPublishedNodes(nodes);
        });
    }

    /** Unpublishes from one node, or from all when {@code nodeId} is empty. Unknown volumes are fine. */
    public void controllerUnpublish(String id, String nodeId) {
        volumesById.computeIfPresent(id, (k, v) -> {
            Map<String, Boolean> nodes = new HashMap<>(v.publishedNodes());
            List<String> removed = new ArrayList<>();
            if (nodeId.isEmpty()) {
                removed.addAll(nodes.keySet());
                nodes.clear();
            } else if (nodes.remove(nodeId) != null) {
                removed.add(nodeId);
            }
            if (removed.isEmpty()) {
                return v;
            }
            removed.forEach(this::detached);
            Volume next = v.withPublishedNodes(nodes);
            volumesByName.replace(v.name(), v, next);
            return next;
        });
    }

    private void detached(String nodeId) {
        AtomicLong n = attachedPerNode.get(nodeId);
        if (n != null) {
            n.decrementAndGet();
        }
    }

    // -------------------------------------------------------------- node side

    public Volume stage(String id, String stagingPath) {
        return update(id, v -> {
            if (v.stagingPath() == null) {
                return v.withStagingPath(stagingPath);
            }
            if (!v.stagingPath().equals(stagingPath)) {
                throw new StateException(FAILED_PRECONDITION, "volume " + id + " is already staged at "
                        + v.stagingPath());
            }
            return v;
        });
    }

    public void unstage(String id, String stagingPath) {
        volumesById.computeIfPresent(id, (k, v) -> {
            if (v.stagingPath() == null || !v.stagingPath().equals(stagingPath)) {
                return v;
            }
            Volume next = v.withStagingPath(null);
            volumesByName.replace(v.name(), v, next);
            return next;
        });
    }

    public Volume publish(String id, String targetPath, String stagingPath, boolean readonly, boolean needsStage) {
        return update(id, v -> {
            if (needsStage && !Objects.equals(v.stagingPath(), stagingPath)) {
                throw new StateException(FAILED_PRECONDITION, "volume " + id + " is not staged at " + stagingPath
                        + (v.stagingPath() == null ? "" : " (it is staged at " + v.stagingPath() + ")"));
            }
            Boolean current = v.targets().get(targetPath);
            if (current != null) {
                if (current != readonly) {
                    throw new StateException(ALREADY_EXISTS, "volume " + id + " is already published at "
                            + targetPath + " with readonly=" + current);
                }
                return v;
            }
            Map<String, Boolean> targets = new HashMap<>(v.targets());
            targets.put(targetPath, readonly);
            return v.withTargets(targets);
        });
    }

    /** True if the volume was published at that path. */
    public boolean unpublish(String id, String targetPath) {
        boolean[] removed = {false};
        volumesById.computeIfPresent(id, (k, v) -> {
            if (!v.targets().containsKey(targetPath)) {
                return v;
            }
            Map<String, Boolean> targets = new HashMap<>(v.targets());
            targets.remove(targetPath);
            removed[0] = true;
            Volume next = v.withTargets(targets);
            volumesByName.replace(v.name(), v, next);
            return next;
        });
        return removed[0];
    }

    // ------------------------------------------------------------- snapshots

    public Snapshot createSnapshot(String name, String sourceVolumeId) {
        Snapshot existing = snapshotsByName.get(name);
        if (existing != null) {
            return sameSource(existing, sourceVolumeId);
        }
        Volume source = volumesById.get(sourceVolumeId);
        if (source == null) {
            throw new StateException(NOT_FOUND, "source volume " + sourceVolumeId + " does not exist");
        }
        Limits l = limits.get();
        long max = l.maxSnapshots();
        if (!tryIncrement(snapshotCount, 1, max)) {
            throw new StateException(RESOURCE_EXHAUSTED, "snapshot limit of " + max + " reached");
        }
        try {
            reserveHeld(text(name), l);
        } catch (StateException e) {
            snapshotCount.decrementAndGet();
            throw e;
        }
        Snapshot fresh = new Snapshot(UUID.randomUUID().toString(), name, sourceVolumeId, source.capacityBytes(),
                clock.instant(), seq.incrementAndGet());
        snapshotsById.put(fresh.id(), fresh);
        Snapshot winner = snapshotsByName.putIfAbsent(name, fresh);
        if (winner != null) {
            snapshotsById.remove(fresh.id());
            snapshotCount.decrementAndGet();
            heldBytes.addAndGet(-text(name));
            return sameSource(winner, sourceVolumeId);
        }
        snapshotOrder.put(fresh.seq(), fresh.id());
        return fresh;
    }

    private static Snapshot sameSource(Snapshot s, String sourceVolumeId) {
        if (!s.sourceVolumeId().equals(sourceVolumeId)) {
            throw new StateException(ALREADY_EXISTS, "snapshot '" + s.name() + "' exists for another source volume, "
                    + s.sourceVolumeId());
        }
        return s;
    }

    public Optional<Snapshot> snapshot(String id) {
        return Optional.ofNullable(snapshotsById.get(id));
    }

    public boolean deleteSnapshot(String id) {
        Snapshot s = snapshotsById.remove(id);
        if (s == null) {
            return false;
        }
        snapshotsByName.remove(s.name(), s);
        snapshotOrder.remove(s.seq());
        snapshotCount.decrementAndGet();
        heldBytes.addAndGet(-text(s.name()));
        return true;
    }

    public Page<Snapshot> listSnapshots(String startingToken, int maxEntries, String sourceVolumeId) {
        Predicate<Snapshot> filter = sourceVolumeId.isEmpty() ? s -> true
                : s -> s.sourceVolumeId().equals(sourceVolumeId);
        return page(snapshotOrder, snapshotsById, startingToken, maxEntries, filter);
    }

    // --------------------------------------------------------------- paging

    private static StateException badToken(String token) {
        return new StateException(StateException.Reason.ABORTED, "starting_token '" + token
                + "' was not issued by this driver");
    }

    private static <T> Page<T> page(ConcurrentSkipListMap<Long, String> order, Map<String, T> byId,
            String startingToken, int maxEntries, Predicate<T> filter) {
        long from = 0;
        if (!startingToken.isEmpty()) {
            try {
                from = Long.parseLong(startingToken);
            } catch (NumberFormatException e) {
                throw badToken(startingToken);
            }
            if (from <= 0) {
                throw badToken(startingToken);
            }
        }
        int max = maxEntries <= 0 ? Integer.MAX_VALUE : maxEntries;
        List<T> entries = new ArrayList<>();
        ConcurrentNavigableMap<Long, String> tail = order.tailMap(from, true);
        for (Map.Entry<Long, String> e : tail.entrySet()) {
            T item = byId.get(e.getValue());
            if (item == null || !filter.test(item)) {
                continue;
            }
            if (entries.size() == max) {
                return new Page<>(entries, Long.toString(e.getKey()));
            }
            entries.add(item);
        }
        return new Page<>(entries, "");
    }
}
