package dev.provbench.measure;

import dev.provbench.csi.CallLog;
import dev.provbench.evidence.DriverCallSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The driver's CreateVolume and DeleteVolume calls ({@link CallLog}) as one run reads them, once for every
 * measurement that needs them: {@link OperationStages} (when each volume's call was first received and first
 * answered OK) and {@link DriverCalls} (the calls answered in the window, for the run's own volumes). Read from the
 * run's start (the calls before it are skipped), once a second (at most {@link #PAGES_PER_SAMPLE} pages), right
 * after each window edge and at the finish (every page there is). A call belongs to the window when it was read
 * after the window-start read and by the window-end read: the edges the driver's counters are read at, in the
 * driver's own order, so no clock is compared. Bounded: at most {@link #MAX_CALLS} volumes per method and
 * {@link #MAX_WINDOW} window calls are kept; past them, and where the driver's ring overwrote calls before they
 * were read, the figures say how many were lost.
 */
public final class DriverCallTrack {
    /** Pages of driver calls read per sample at most (10,000 each): 50,000 calls a second. */
    static final int PAGES_PER_SAMPLE = 5;
    static final int PAGE = 10_000;
    /** Volumes remembered per method (first receipt, first OK answer, CreateVolume's volume id). */
    static final int MAX_CALLS = 2_000_000;
    /** Calls of the window kept for {@link DriverCalls}' own figures. */
    static final int MAX_WINDOW = 1_000_000;

    /** First receipt and first OK answer of a volume's call in epoch µs (0 = none yet); CreateVolume's volume id. */
    static final class Seen {
        long received;
        long answered;
        String volumeId;
    }

    /**
     * One call answered in the window: CreateVolume (its request's name) or DeleteVolume (its volume id), its
     * code, whether it was an injected fault, and whether it was the first OK answer for its volume (CreateVolume:
     * the volume made, not an idempotent repeat; DeleteVolume: the volume deleted, not a repeat for one gone).
     */
    record WindowCall(boolean create, String key, String code, boolean injected, boolean firstOk) {
    }

    private enum Phase { BEFORE, WINDOW, AFTER }

    private final DriverCallSource source;
    private final Map<String, Seen> creates = new HashMap<>();
    private final Map<String, Seen> deletes = new HashMap<>();
    private final List<WindowCall> window = new ArrayList<>();
    private Phase phase = Phase.BEFORE;
    private boolean begun;
    private long next;
    private long missed;
    private long missedInWindow;
    private long overflow;
    private long windowOverflow;
    private long lastDrain;
    private String error;
    private String edgeError;

    public DriverCallTrack(DriverCallSource source) {
        this.source = source;
    }

    public DriverCallSource source() {
        return source;
    }

    /** Skips the calls the driver answered before the run: they are not its own. Once; later calls do nothing. */
    public synchronized void begin() {
        if (begun) {
            return;
        }
        begun = true;
        try {
            long at = 0;
            for (int i = 0; i < 100; i++) { // the ring holds CallLog.CAPACITY calls: a few pages
                CallLog.Page p = source.read(at, PAGE);
                at = p.next();
                if (p.calls().isEmpty()) {
                    break;
                }
            }
            next = at;
        } catch (Exception e) {
            error = e.getMessage();
        }
    }

    /** The once-a-second read; a second caller within half a second reads nothing. */
    public synchronized void sample() {
        long now = System.nanoTime();
        if (lastDrain != 0 && now - lastDrain < 500_000_000L) {
            return;
        }
        drain(PAGES_PER_SAMPLE);
    }

    /** Right after the window opened: what was read so far is before it. Once. */
    public synchronized void windowStart() {
        if (phase == Phase.BEFORE) {
            drain(Integer.MAX_VALUE);
            edge();
            phase = Phase.WINDOW;
        }
    }

    /** Right after the window closed: what is read now is the window's last. Once. */
    public synchronized void windowEnd() {
        if (phase == Phase.WINDOW) {
            drain(Integer.MAX_VALUE);
            edge();
            phase = Phase.AFTER;
        }
    }

    private void edge() {
        if (error != null && edgeError == null) {
            edgeError = error;
        }
    }

    /** After the run: every call there is. */
    public synchronized void finish() {
        drain(Integer.MAX_VALUE);
    }

    private void drain(int pages) {
        lastDrain = System.nanoTime();
        try {
            for (int i = 0; i < pages; i++) {
                CallLog.Page p = source.read(next, PAGE);
                missed += p.missed();
                if (phase == Phase.WINDOW) {
                    missedInWindow += p.missed();
                }
                for (CallLog.Call c : p.calls()) {
                    add(c);
                }
                next = p.next();
                if (p.calls().size() < PAGE) {
                    break;
                }
            }
            error = null;
        } catch (Exception e) {
            error = e.getMessage();
        }
    }

    private void add(CallLog.Call c) {
        boolean create = "CreateVolume".equals(c.method());
        Map<String, Seen> m = create ? creates : "DeleteVolume".equals(c.method()) ? deletes : null;
        if (m == null || c.name() == null) {
            return;
        }
        Seen s = m.get(c.name());
        if (s == null && m.size() < MAX_CALLS) {
            s = new Seen();
            m.put(c.name(), s);
        }
        boolean ok = "OK".equals(c.code());
        if (phase == Phase.WINDOW) {
            if (window.size() < MAX_WINDOW) {
                window.add(new WindowCall(create, c.name(), c.code(), c.injected(), ok && (s == null || s.answered == 0)));
            } else {
                windowOverflow++;
            }
        }
        if (s == null) {
            overflow++;
            return;
        }
        if (s.received == 0 || c.received() < s.received) {
            s.received = c.received();
        }
        if (ok && (s.answered == 0 || c.answered() < s.answered)) {
            s.answered = c.answered();
        }
        if (create && c.volumeId() != null && s.volumeId == null) {
            s.volumeId = c.volumeId();
        }
    }

    /** The first receipt and first OK answer of a CreateVolume by name (create) or DeleteVolume by volume id. */
    synchronized Seen seen(boolean create, String key) {
        return (create ? creates : deletes).get(key);
    }

    /** The calls answered in the window, in the driver's order. */
    synchronized List<WindowCall> window() {
        return List.copyOf(window);
    }

    /**
     * The volume ids CreateVolume answered for the names {@code own} accepts: what DeleteVolume calls of those
     * volumes name.
     */
    synchronized java.util.Set<String> volumeIds(java.util.function.Predicate<String> own) {
        java.util.Set<String> out = new java.util.HashSet<>();
        creates.forEach((name, s) -> {
            if (s.volumeId != null && own.test(name)) {
                out.add(s.volumeId);
            }
        });
        return out;
    }

    /** Calls the driver's ring overwrote before they were read: all, and those of the window. */
    synchronized long missed() {
        return missed;
    }

    synchronized long missedInWindow() {
        return missedInWindow;
    }

    /** Volumes not remembered (over {@link #MAX_CALLS}) and window calls not kept (over {@link #MAX_WINDOW}). */
    synchronized long overflow() {
        return overflow;
    }

    synchronized long windowOverflow() {
        return windowOverflow;
    }

    /** Why the last read failed, or null. */
    synchronized String error() {
        return error;
    }

    /**
     * Why the window's calls are not known whole — a read at an edge failed, or the window never closed —, or null
     * when they were read at both edges.
     */
    synchronized String windowProblem() {
        if (edgeError != null) {
            return "the driver's calls could not be read at a window edge (" + edgeError + ")";
        }
        return phase == Phase.AFTER ? null : "the window's edges were not both read";
    }
}
