package dev.provbench.evidence;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reads of another process's counters through a run, and the one definition of how much they grew: the
 * increase between two reads follows Prometheus' {@code increase()} segment by segment — between consecutive
 * reads a counter that dropped restarted and its new value counts from 0, and so does every counter when the
 * process start time changed — and the segments are summed. A series that appears counts from 0. Each restart seen is
 * a reset; what the process counted between the last read before it and the restart is lost, which is why the
 * reads come once a second through the run, not only at the window's edges. Thread-safe.
 */
public final class CounterTrack {

    /** One read: counters by name and the process's start time (NaN when unknown). */
    public record Read(long nanos, Map<String, Double> counters, double startTime) {
    }

    /** How much each counter grew between two reads, and the restarts seen on the way. */
    public record Increase(Map<String, Double> values, int resets, long fromNanos, long toNanos) {
        public double get(String counter) {
            return values.getOrDefault(counter, 0.0);
        }

        public long count(String counter) {
            return Math.round(get(counter));
        }
    }

    private final List<Read> reads = new ArrayList<>();
    private List<Read> sorted; // guarded by reads; null after an add

    public void add(long nanos, Map<String, Double> counters, double startTime) {
        synchronized (reads) {
            reads.add(new Read(nanos, Map.copyOf(counters), startTime));
            sorted = null;
        }
    }

    private List<Read> sorted() {
        synchronized (reads) {
            if (sorted == null) {
                List<Read> s = new ArrayList<>(reads);
                s.sort(Comparator.comparingLong(Read::nanos));
                sorted = List.copyOf(s);
            }
            return sorted;
        }
    }

    /** Whether {@code now} is a new process instance compared with {@code before} (its start time changed). */
    static boolean newProcess(Read before, Read now) {
        return !Double.isNaN(now.startTime) && !Double.isNaN(before.startTime) && now.startTime != before.startTime;
    }

    /**
     * The increase from the last read at or before {@code from} to the last read at or before {@code to};
     * null without such reads.
     */
    public Increase increase(long from, long to) {
        List<Read> s = sorted();
        int a = atOrBefore(s, from);
        int b = atOrBefore(s, to);
        if (a < 0 || b < 0 || b < a) {
            return null;
        }
        Map<String, Double> sum = new TreeMap<>();
        int resets = 0;
        for (int k = a + 1; k <= b; k++) {
            Read prev = s.get(k - 1);
            Read now = s.get(k);
            boolean all = newProcess(prev, now);
            boolean any = all;
            for (Map.Entry<String, Double> e : now.counters.entrySet()) {
                double before = prev.counters.getOrDefault(e.getKey(), 0.0);
                boolean reset = all || e.getValue() < before;
                any |= reset;
                sum.merge(e.getKey(), reset ? e.getValue() : e.getValue() - before, Double::sum);
            }
            resets += any ? 1 : 0;
        }
        s.get(a).counters.keySet().forEach(k -> sum.putIfAbsent(k, 0.0));
        return new Increase(sum, resets, s.get(a).nanos, s.get(b).nanos);
    }

    /** Index of the last read at or before {@code at}; -1 if none. */
    private static int atOrBefore(List<Read> s, long at) {
        int lo = 0;
        int hi = s.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (s.get(mid).nanos <= at) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }
}
