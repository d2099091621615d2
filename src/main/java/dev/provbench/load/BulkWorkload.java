package dev.provbench.load;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code --mode bulk --count N}, the shape of clusterloader2's and kube-burner's storage jobs: N claims are created
 * through the client's QPS/burst as fast as it lets them go (open loop: a POST does not wait for the claims before
 * it to bind; {@code threads} POSTs at most in flight), then the run waits until every claim is Bound; then all are
 * deleted the same way and the run waits until every PV is gone. The window is the whole wave: it opens before the
 * first POST and closes when the last PV is gone (or the last wait timed out).
 *
 * <p>Each claim is one create op (POST started → Bound) and, once Bound, one delete op (DELETE started → PV gone),
 * recorded in the op log and the stamps as churn's are, so latency, stages and throttling read the same. A claim
 * waits at most {@code --op-timeout} from its own POST (or DELETE); one that does not bind in time is a failed create
 * and goes to the reaper. {@link Tally} has the wave's counts and edges for the report's {@code bulk} section.
 */
public final class BulkWorkload implements Workload {
    static final String NAME = "bulk";

    /** Where the wave is, for the live view. */
    public enum Stage { CREATING, BINDING, DELETING, GOING, DONE, STOPPED;

        public String json() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final int PENDING = 0, DONE = 1, FAILED = 2;

    private static final class Item {
        final String name;
        volatile ClaimOps.Sent created;
        volatile String volume;
        final AtomicInteger bound = new AtomicInteger(PENDING);
        volatile CompletableFuture<String> boundWait;
        volatile ClaimOps.Sent deleted;
        final AtomicInteger gone = new AtomicInteger(PENDING);
        volatile CompletableFuture<String> goneWait;

        Item(String name) {
            this.name = name;
        }
    }

    private final RunConfig config;
    private final int count;
    private final Item[] items;
    private final AtomicInteger nextCreate = new AtomicInteger();
    private final AtomicInteger nextDelete = new AtomicInteger();
    private final Phaser steps;
    private final Tally tally;

    BulkWorkload(RunConfig config) {
        this.config = config;
        this.count = (int) config.count();
        this.items = new Item[count];
        this.steps = new Phaser(workers());
        this.tally = new Tally(count);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int workers() {
        return (int) Math.max(1, Math.min(config.threads(), count));
    }

    @Override
    public boolean timedWindow() {
        return false;
    }

    @Override
    public String describe() {
        return count + " claims at once (" + workers() + " requests in flight at most)";
    }

    /** The wave's counts and edges so far. */
    public Tally tally() {
        return tally;
    }

    @Override
    public void work(int index, WorkContext ctx) throws InterruptedException {
        try {
            int k;
            while (!ctx.signals().stopping() && (k = nextCreate.getAndIncrement()) < count) {
                create(k, ctx);
            }
            step(index == 0 ? Stage.BINDING : null);
            if (index == 0) {
                awaitAll(ctx, true);
            }
            step(index == 0 ? Stage.DELETING : null);
            while (!ctx.signals().stopping() && (k = nextDelete.getAndIncrement()) < count) {
                delete(k, ctx);
            }
            step(index == 0 ? Stage.GOING : null);
            if (index == 0) {
                awaitAll(ctx, false);
                tally.stage = ctx.signals().stopping() && tally.gone() < count ? Stage.STOPPED : Stage.DONE;
            }
        } finally {
            steps.arriveAndDeregister();
        }
    }

    /** Every worker waits here for the others; the first says where the wave is now. */
    private void step(Stage next) throws InterruptedException {
        steps.awaitAdvanceInterruptibly(steps.arrive());
        if (next != null) {
            tally.stage = next;
        }
    }

    private void create(int k, WorkContext ctx) throws InterruptedException {
        Item item = new Item(ctx.claims().name(k + 1L));
        items[k] = item;
        ctx.log().started();
        ClaimOps.Sent sent = ctx.claims().create(item.name, System.nanoTime() + config.opTimeout().toNanos());
        tally.first(tally.firstCreate, sent == null ? System.nanoTime() : sent.t0());
        if (sent == null) {
            item.bound.set(FAILED);
            ctx.log().ended();
            return;
        }
        item.created = sent;
        tally.sent.incrementAndGet();
        CompletableFuture<String> wait = ctx.waits().bound(item.name);
        item.boundWait = wait;
        wait.thenAccept(volume -> bound(item, volume, ctx));
    }

    private void bound(Item item, String volume, WorkContext ctx) {
        if (!item.bound.compareAndSet(PENDING, DONE)) {
            return; // timed out before
        }
        long end = System.nanoTime();
        item.volume = volume;
        ctx.claims().bound(item.name, item.created, end);
        tally.at(tally.boundAt, tally.bound, end);
    }

    private void delete(int k, WorkContext ctx) throws InterruptedException {
        Item item = items[k];
        if (item == null || item.bound.get() != DONE) {
            return;
        }
        ClaimOps.Sent sent = ctx.claims().delete(item.name, item.volume,
                System.nanoTime() + config.opTimeout().toNanos());
        tally.first(tally.firstDelete, sent == null ? System.nanoTime() : sent.t0());
        if (sent == null) {
            item.gone.set(FAILED);
            ctx.log().ended();
            return;
        }
        item.deleted = sent;
        tally.deletesSent.incrementAndGet();
        CompletableFuture<String> wait = ctx.waits().gone(item.volume);
        item.goneWait = wait;
        wait.thenAccept(v -> gone(item, ctx));
    }

    private void gone(Item item, WorkContext ctx) {
        if (!item.gone.compareAndSet(PENDING, DONE)) {
            return;
        }
        long end = System.nanoTime();
        ctx.claims().gone(item.name, item.deleted, end);
        tally.at(tally.goneAt, tally.gone, end);
        ctx.log().ended();
    }

    /**
     * Waits, in send order, until every claim sent is Bound ({@code create}) or every PV deleted is gone, each at
     * most until its own op timeout; returns early when the run is cut.
     */
    private void awaitAll(WorkContext ctx, boolean create) throws InterruptedException {
        long timeout = config.opTimeout().toNanos();
        for (Item item : items) {
            if (item == null) {
                continue;
            }
            AtomicInteger state = create ? item.bound : item.gone;
            ClaimOps.Sent sent = create ? item.created : item.deleted;
            CompletableFuture<String> wait = create ? item.boundWait : item.goneWait;
            if (sent == null || wait == null) {
                continue;
            }
            long deadline = sent.t0() + timeout;
            while (state.get() == PENDING) {
                if (ctx.signals().cut()) {
                    return;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    if (state.compareAndSet(PENDING, FAILED)) {
                        if (create) {
                            ctx.waits().dropBound(item.name, wait);
                            ctx.claims().createFailed(item.name, "create:timeout", new TimeoutException(), true);
                        } else {
                            ctx.waits().dropGone(item.volume, wait);
                            ctx.claims().deleteFailed(item.name, "delete:timeout", new TimeoutException());
                        }
                        ctx.log().ended();
                    }
                    break;
                }
                try {
                    wait.get(Math.min(left, 100_000_000L), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // look at the run's signals and the deadline again
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
                if (!wait.isDone()) {
                    continue;
                }
                // done: the callback records it on the completing thread; wait for that record, briefly
                for (int i = 0; i < 1000 && state.get() == PENDING; i++) {
                    Thread.sleep(1);
                }
                break;
            }
        }
    }

    /**
     * The wave's counts and edges ({@link System#nanoTime()}; 0 = not yet): claims whose POST the server took
     * ({@code sent}), Bound, DELETEs taken, PVs gone; when each claim bound and each PV went, in the order they did.
     */
    public static final class Tally {
        final int count;
        final AtomicLong sent = new AtomicLong();
        final AtomicLong bound = new AtomicLong();
        final AtomicLong deletesSent = new AtomicLong();
        final AtomicLong gone = new AtomicLong();
        final AtomicLong firstCreate = new AtomicLong();
        final AtomicLong firstDelete = new AtomicLong();
        final long[] boundAt;
        final long[] goneAt;
        volatile Stage stage = Stage.CREATING;

        Tally(int count) {
            this.count = count;
            this.boundAt = new long[count];
            this.goneAt = new long[count];
        }

        /** The earliest of the times given (0: none yet): workers finish their writes in another order than they began. */
        void first(AtomicLong edge, long nanos) {
            edge.accumulateAndGet(nanos, (a, b) -> a == 0 ? b : Math.min(a, b));
        }

        void at(long[] times, AtomicLong n, long nanos) {
            synchronized (times) {
                long i = n.get();
                if (i < times.length) {
                    times[(int) i] = nanos;
                }
                n.incrementAndGet();
            }
        }

        /** A copy of the first {@code n} times of {@code times}, read under its lock. */
        private static long[] times(long[] times, AtomicLong n) {
            synchronized (times) {
                return java.util.Arrays.copyOf(times, (int) Math.min(n.get(), times.length));
            }
        }

        /** The claims of the wave ({@code --count}). */
        public int count() {
            return count;
        }

        /** Claims whose POST the API server took (or that were adopted after a lost answer). */
        public long sent() {
            return sent.get();
        }

        public long bound() {
            return bound.get();
        }

        /** DELETEs the API server took. */
        public long deletesSent() {
            return deletesSent.get();
        }

        public long gone() {
            return gone.get();
        }

        /** When the first create started (before its token); 0: none yet. */
        public long firstCreateNanos() {
            return firstCreate.get();
        }

        /** When the first delete started; 0: none yet. */
        public long firstDeleteNanos() {
            return firstDelete.get();
        }

        /** When each claim was seen Bound, in that order. */
        public long[] boundTimes() {
            return times(boundAt, bound);
        }

        /** When each PV was seen gone, in that order. */
        public long[] goneTimes() {
            return times(goneAt, gone);
        }

        public Stage stage() {
            return stage;
        }
    }
}
