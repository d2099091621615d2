package dev.provbench.csi.state;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VolumeStoreTest {
    static final long GI = 1L << 30;
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

    static VolumeStore store(long maxVolumes, long totalCapacity) {
        return new VolumeStore(new Limits(GI, 0, totalCapacity, maxVolumes, 0, 0, 0), CLOCK);
    }

    static VolumeStore.CreateSpec spec(String name) {
        return new VolumeStore.CreateSpec(name, 0, 0, Map.of(), Map.of(), null);
    }

    @Test
    void equalParameterMapsAreHeldOnceAndIdsAreCompact() {
        VolumeStore s = store(0, 0);
        Volume a = s.create(new VolumeStore.CreateSpec("a", 0, 0, new java.util.HashMap<>(Map.of("type", "ssd")),
                Map.of(), null)).volume();
        Volume b = s.create(new VolumeStore.CreateSpec("b", 0, 0, new java.util.HashMap<>(Map.of("type", "ssd")),
                Map.of(), null)).volume();
        org.junit.jupiter.api.Assertions.assertSame(a.parameters(), b.parameters(), "one shared map");
        assertTrue(a.id().matches("[0-9a-f]{16}"), a.id());
        assertFalse(a.id().equals(b.id()));
        assertEquals(Map.of("type", "ssd"), s.volume(b.id()).orElseThrow().parameters());
    }

    @Test
    void theInternerIsBounded() {
        MapInterner maps = new MapInterner(1000);
        for (int i = 0; i < 100; i++) {
            Map<String, String> m = Map.of("k", "v" + i);
            assertEquals(m, maps.intern(new java.util.HashMap<>(m)));
        }
        assertTrue(maps.size() < 100 && maps.size() > 0, "kept " + maps.size());
        Map<String, String> first = Map.of("k", "v0");
        org.junit.jupiter.api.Assertions.assertSame(maps.intern(first), maps.intern(new java.util.HashMap<>(first)));
        org.junit.jupiter.api.Assertions.assertSame(Map.of(), maps.intern(new java.util.HashMap<>()));
    }

    @Test
    void heldBytesAreBoundedCountedAndGivenBack() {
        // name "a": 48 + 1 per volume; the parameter map k=v is shared (held once, by the interner)
        VolumeStore s = new VolumeStore(new Limits(GI, 0, 0, 0, 0, 0, 2 * 49 + 10), CLOCK);
        VolumeStore.CreateSpec one = new VolumeStore.CreateSpec("a", 0, 0, Map.of("k", "v"), Map.of(), null);
        Volume a = s.create(one).volume();
        assertEquals(49, s.heldBytes());
        s.create(one); // idempotent repeat: nothing more held
        assertEquals(49, s.heldBytes());
        Volume b = s.create(new VolumeStore.CreateSpec("b", 0, 0, Map.of("k", "v"), Map.of(), null)).volume();
        assertEquals(98, s.heldBytes());
        StateException e = assertThrows(StateException.class,
                () -> s.create(new VolumeStore.CreateSpec("c", 0, 0, Map.of("k", "v"), Map.of(), null)));
        assertEquals(StateException.Reason.RESOURCE_EXHAUSTED, e.reason());
        assertTrue(e.getMessage().contains("limits.max-held-bytes"), e.getMessage());
        assertEquals(2, s.volumeCount(), "a refused create holds no volume");
        assertEquals(2 * GI, s.usedBytes(), "nor capacity");
        // a snapshot's name counts too: 48 + 1 is more than the 10 bytes left
        assertThrows(StateException.class, () -> s.createSnapshot("s", a.id()));
        assertTrue(s.delete(b.id()));
        assertEquals(49, s.heldBytes());
        s.createSnapshot("s", a.id());
        assertEquals(49 + 49, s.heldBytes());
        // merged mutable parameters are the volume's own: iops=100 is 32 + 52 + 51
        s.modify(a.id(), Map.of("iops", "100"));
        assertEquals(49 + 49 + 32 + 52 + 51, s.heldBytes(), "mutable parameters count");
        assertTrue(s.deleteSnapshot(s.listSnapshots("", 0, "").entries().get(0).id()));
        assertTrue(s.delete(a.id()));
        assertEquals(0, s.heldBytes());
    }

    @Test
    void multibyteCharactersCountTheirUtf8Bytes() {
        VolumeStore s = new VolumeStore(new Limits(GI, 0, 0, 0, 0, 0, 0), CLOCK);
        s.create(new VolumeStore.CreateSpec("\u00e9\u20ac\ud83d\ude00", 0, 0, Map.of(), Map.of(), null));
        assertEquals(48 + 2 + 3 + 4, s.heldBytes());
    }

    @Test
    void theDefaultLimitsFollowTheHeap() {
        long mib = 1L << 20;
        // 64 MiB: 40 MiB usable, 60 % for volumes at 512 B, 30 % for names and parameters
        assertEquals(49152, HeapBudget.maxVolumes(64 * mib));
        assertEquals((long) (40 * mib * 0.3), HeapBudget.maxHeldBytes(64 * mib));
        // the Deployment's 192 MiB heap (75 % of 256 Mi)
        assertEquals(206438, HeapBudget.maxVolumes(192 * mib));
        // a tiny heap keeps an eighth, never nothing
        assertEquals((long) (2 * mib * 0.6 / 512), HeapBudget.maxVolumes(16 * mib));
        assertTrue(HeapBudget.maxHeldBytes(1 * mib) >= 64 << 10);
    }

    @Test
    void sixtyFourThreadsOneName() throws Exception {
        VolumeStore s = store(0, 0);
        ExecutorService pool = Executors.newFixedThreadPool(64);
        try {
            for (int round = 0; round < 50; round++) {
                String name = "n" + round;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<VolumeStore.Created>> fs = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    fs.add(pool.submit(() -> {
                        go.await();
                        return s.create(spec(name));
                    }));
                }
                go.countDown();
                Set<String> ids = ConcurrentHashMap.newKeySet();
                int fresh = 0;
                for (var f : fs) {
                    VolumeStore.Created c = f.get(10, TimeUnit.SECONDS);
                    ids.add(c.volume().id());
                    fresh += c.isNew() ? 1 : 0;
                }
                assertEquals(1, ids.size());
                assertEquals(1, fresh);
            }
            assertEquals(50, s.volumeCount());
            assertEquals(50 * GI, s.usedBytes());
            assertEquals(50, s.listVolumes("", 0).entries().size());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentCreatesNeverPassTheLimit() throws Exception {
        VolumeStore s = store(100, 0);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String name = "v" + i;
            fs.add(pool.submit(() -> {
                try {
                    s.create(spec(name));
                    ok.incrementAndGet();
                } catch (StateException e) {
                    assertEquals(StateException.Reason.RESOURCE_EXHAUSTED, e.reason());
                    refused.incrementAndGet();
                }
            }));
        }
        for (var f : fs) {
            f.get(10, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
        assertEquals(100, ok.get());
        assertEquals(400, refused.get());
        assertEquals(100, s.volumeCount());
    }

    @Test
    void deleteReleasesCapacityIncludingExpansion() {
        VolumeStore s = store(0, 10 * GI);
        Volume v = s.create(spec("a")).volume();
        s.expand(v.id(), 4 * GI, 0);
        assertEquals(4 * GI, s.usedBytes());
        assertEquals(6 * GI, s.availableBytes());
        assertTrue(s.delete(v.id()));
        assertFalse(s.delete(v.id()));
        assertEquals(0, s.usedBytes());
        assertEquals(0, s.volumeCount());
        StateException e = assertThrows(StateException.class,
                () -> s.create(new VolumeStore.CreateSpec("big", 11 * GI, 0, Map.of(), Map.of(), null)));
        assertEquals(StateException.Reason.RESOURCE_EXHAUSTED, e.reason());
        assertEquals(0, s.usedBytes(), "a refused create holds nothing");
    }

    @Test
    void pageTokensSurviveDeletes() {
        VolumeStore s = store(0, 0);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(s.create(spec("p" + i)).volume().id());
        }
        Page<Volume> first = s.listVolumes("", 2);
        assertEquals(ids.subList(0, 2), first.entries().stream().map(Volume::id).toList());
        s.delete(ids.get(2)); // the entry the token points at
        Page<Volume> second = s.listVolumes(first.nextToken(), 2);
        assertEquals(ids.subList(3, 5), second.entries().stream().map(Volume::id).toList());
        assertEquals("", second.nextToken());
        assertEquals(StateException.Reason.ABORTED,
                assertThrows(StateException.class, () -> s.listVolumes("xyz", 1)).reason());
    }

    @Test
    void snapshotsRecordTheClock() {
        VolumeStore s = store(0, 0);
        Volume v = s.create(spec("v")).volume();
        Snapshot snap = s.createSnapshot("s", v.id());
        assertEquals(CLOCK.instant(), snap.createdAt());
        assertEquals(GI, snap.sizeBytes());
        assertEquals(1, s.snapshotCount());
        assertTrue(s.deleteSnapshot(snap.id()));
        assertEquals(0, s.snapshotCount());
    }
}
