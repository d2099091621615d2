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
        return new VolumeStore(new Limits(GI, 0, totalCapacity, maxVolumes, 0, 0), CLOCK);
    }

    static VolumeStore.CreateSpec spec(String name) {
        return new VolumeStore.CreateSpec(name, 0, 0, Map.of(), Map.of(), null);
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
