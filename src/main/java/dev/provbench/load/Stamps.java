package dev.provbench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each step of each operation happened, as the tool saw it ({@link System#nanoTime()}): the worker stamps
 * its own steps (start, token, answer, end), {@link Waits}' informer handlers stamp what the watches show (the
 * claim marked for its provisioner, its PV seen, the claim gone, the PV Released). A finished op (completed, any
 * phase) is kept, bounded by {@link #MAX_FINISHED}, for the stages measurement and {@code --records}; the
 * driver's own stamps (CreateVolume/DeleteVolume received and answered) are matched there, by {@link Op#key}.
 */
public final class Stamps {
    /** Ops kept for the report; past it, later ops are counted in {@link #overflow} only. */
    public static final int MAX_FINISHED = 1_000_000;

    /** Create: start, token, POST answered, marked, PV seen, Bound. Delete: start, token, DELETE answered, claim gone, PV Released, PV gone. */
    public static final int START = 0, SENT = 1, ANSWERED = 2, SEEN_A = 3, SEEN_B = 4, END = 5, N = 6;

    /**
     * One finished op: {@code create} or not (delete), its claim, the driver-side key (CreateVolume's name
     * {@code pvc-<claim UID>}, DeleteVolume's volume id), its stamps (0 = not seen), the phase it ended in, and
     * {@code answerLost}: a create whose first POST's answer was lost (adopted, or sent again after a broken
     * connection), so it has no "POST answered" stamp and its stages are not known.
     */
    public record Op(boolean create, String claim, String key, long[] at, OpLog.Phase phase, boolean answerLost) {
    }

    private static final class Claim {
        final long[] create = new long[N];
        final long[] delete = new long[N];
        volatile String uid;
        volatile String handle;
    }

    private final Map<String, Claim> live = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong released = new java.util.concurrent.atomic.AtomicLong();
    /** The UIDs of every claim of the run seen so far (POST answers, the claims' watch): its volumes' names. */
    private final java.util.Set<String> own = ConcurrentHashMap.newKeySet();
    private final List<Op> finished = new ArrayList<>(); // guarded by this
    private long overflow; // guarded by this
    private long ownOverflow; // guarded by this

    private Claim claim(String name) {
        return live.computeIfAbsent(name, k -> new Claim());
    }

    /** Stamps {@code a[i]} unless it was; whether it was not. */
    private static boolean first(long[] a, int i, long now) {
        synchronized (a) {
            if (a[i] == 0) {
                a[i] = now;
                return true;
            }
            return false;
        }
    }

    /**
     * The worker's create: started (before its token), got its token, the POST's answer (and the claim's UID).
     * {@code answered} 0: the first POST's answer was lost (the claim adopted, or the POST sent again after a broken
     * connection); the create is then {@link Op#answerLost} and the claim stays, so it and its delete still get
     * their records.
     */
    void createSent(String name, long start, long sent, long answered, String uid) {
        Claim c = claim(name);
        synchronized (c.create) {
            c.create[START] = start;
            c.create[SENT] = sent;
            c.create[ANSWERED] = answered;
        }
        if (uid != null) {
            c.uid = uid;
            own(uid);
        }
    }

    void deleteSent(String name, long start, long sent, long answered) {
        Claim c = live.get(name);
        if (c != null) {
            synchronized (c.delete) {
                c.delete[START] = start;
                c.delete[SENT] = sent;
                c.delete[ANSWERED] = answered;
            }
        }
    }

    /** A claim of the run has this UID (bounded by {@link #MAX_FINISHED}; past it, {@link #ownOverflow}). */
    public void own(String uid) {
        if (uid == null || own.contains(uid)) {
            return;
        }
        if (own.size() < MAX_FINISHED) {
            own.add(uid);
        } else {
            synchronized (this) {
                ownOverflow++;
            }
        }
    }

    /**
     * Whether {@code volumeName} is the volume of one of the run's claims: csi-provisioner names it
     * {@code pvc-<claim UID>} (its default {@code --volume-name-prefix}, and the stand-in's).
     */
    public boolean ownVolume(String volumeName) {
        return volumeName != null && volumeName.startsWith("pvc-") && own.contains(volumeName.substring(4));
    }

    /** The run's claim UIDs not kept (more than {@link #MAX_FINISHED}): their volumes are not known as the run's. */
    public synchronized long ownOverflow() {
        return ownOverflow;
    }

    // informer handlers (one thread per informer): the first time each is seen
    void marked(String claim, String uid, long now) {
        Claim c = claim(claim);
        if (c.uid == null) {
            c.uid = uid;
        }
        own(uid);
        first(c.create, SEEN_A, now);
    }

    void pvSeen(String claim, String handle, long now) {
        Claim c = live.get(claim);
        if (c != null) {
            if (handle != null) {
                c.handle = handle;
            }
            first(c.create, SEEN_B, now);
        }
    }

    void claimGone(String claim, long now) {
        Claim c = live.get(claim);
        if (c != null) {
            first(c.delete, SEEN_A, now);
        }
    }

    void released(String claim, long now) {
        Claim c = live.get(claim);
        if (c != null && first(c.delete, SEEN_B, now)) {
            released.incrementAndGet();
        }
    }

    /** The run's PVs seen Released so far (each once; claims the run still tracks). */
    public long releasedSeen() {
        return released.get();
    }

    /** The volume handle of the claim's PV when the worker knows it otherwise (no PV event seen). */
    void handle(String claim, String handle) {
        Claim c = live.get(claim);
        if (c != null && c.handle == null) {
            c.handle = handle;
        }
    }

    /** The op completed at {@code end} in {@code phase}; a delete's completion also forgets the claim. */
    void completed(String name, boolean create, long end, OpLog.Phase phase) {
        Claim c = create ? live.get(name) : live.remove(name);
        if (c == null) {
            return;
        }
        long[] a = create ? c.create : c.delete;
        long[] copy;
        synchronized (a) {
            a[END] = end;
            copy = a.clone();
        }
        String key = create ? (c.uid == null ? null : "pvc-" + c.uid) : c.handle;
        synchronized (this) {
            if (finished.size() < MAX_FINISHED) {
                finished.add(new Op(create, name, key, copy, phase, create && copy[ANSWERED] == 0));
            } else {
                overflow++;
            }
        }
    }

    /** The op failed: nothing of this claim is kept. */
    void forget(String name) {
        live.remove(name);
    }

    public synchronized List<Op> finished() {
        return List.copyOf(finished);
    }

    public synchronized long overflow() {
        return overflow;
    }
}
