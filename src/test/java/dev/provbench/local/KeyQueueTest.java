package dev.provbench.local;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyQueueTest {

    @Test
    void pendingKeysAreQueuedOnceAndServedInOrderByOneThread() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> served = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        try (KeyQueue q = new KeyQueue("test-worker", key -> {
            served.add(key);
            threads.add(Thread.currentThread().getName());
            if (key.equals("first")) {
                busy.countDown();
                await(release);
            }
        })) {
            q.add("first");
            assertTrue(busy.await(5, TimeUnit.SECONDS));
            q.add("a");
            q.add("b");
            q.add("a"); // pending already: not queued again
            q.add("first"); // being processed: served again afterwards
            release.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // ends as soon as served
            while (served.size() < 4 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            Thread.sleep(50); // nothing more may come
            assertEquals(List.of("first", "a", "b", "first"), served);
            assertEquals(List.of("test-worker"), threads.stream().distinct().toList());
        }
    }

    @Test
    void aFailingSyncDoesNotStopTheWorker() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        try (KeyQueue q = new KeyQueue("test-worker", key -> {
            if (key.equals("bad")) {
                throw new IllegalStateException("boom");
            }
            done.countDown();
        })) {
            q.add("bad");
            q.add("good");
            assertTrue(done.await(5, TimeUnit.SECONDS));
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
