package dev.provbench.csi;

import java.util.ArrayList;
import java.util.List;

/**
 * When the driver received and answered each CreateVolume and DeleteVolume, by volume: a bounded ring of the last
 * {@link #CAPACITY} calls, each with a sequence number so a reader pages on from where it stopped
 * ({@code GET /driver/calls?after=SEQ}) and learns how many it missed. Times are the driver's wall clock in epoch
 * microseconds (a reader in another process compares them with its own clock: two clocks).
 */
public final class CallLog {
    /** ~120 bytes an entry: about 4 MB at most, minutes of calls at the highest rates measured here. */
    public static final int CAPACITY = 32_768;

    /**
     * @param seq        1, 2, … in the order the calls were answered
     * @param method     {@code CreateVolume} or {@code DeleteVolume}
     * @param name       CreateVolume: the request's name (csi-provisioner: {@code pvc-<claim UID>}); DeleteVolume:
     *                   the volume id
     * @param volumeId   CreateVolume answered OK: the id it returned; else null
     * @param received   epoch µs when the request message arrived
     * @param answered   epoch µs when the answer (or error) was sent
     * @param code       the gRPC code of the answer
     * @param injected   true when the answer was a fault {@link FaultInjector} injected, not the driver's own
     */
    public record Call(long seq, String method, String name, String volumeId, long received, long answered,
                       String code, boolean injected) {
    }

    /** One page: {@code calls} after the asked sequence, {@code next} to ask for next, {@code missed} overwritten. */
    public record Page(List<Call> calls, long next, long missed) {
    }

    private final Call[] ring = new Call[CAPACITY];
    private long last; // guarded by this: the sequence of the newest call

    synchronized void add(String method, String name, String volumeId, long received, long answered, String code,
            boolean injected) {
        last++;
        ring[(int) (last % CAPACITY)] = new Call(last, method, name, volumeId, received, answered, code, injected);
    }

    /** At most {@code limit} calls with a sequence above {@code after}, oldest first. */
    public synchronized Page after(long after, int limit) {
        if (after > last) {
            after = 0; // asked of a driver that restarted since: its calls start at 1 again
        }
        long from = Math.max(after + 1, last - CAPACITY + 1);
        long missed = Math.max(0, from - (after + 1));
        long to = Math.min(last, from + Math.max(0, limit) - 1);
        List<Call> out = new ArrayList<>((int) Math.max(0, to - from + 1));
        for (long s = Math.max(1, from); s <= to; s++) {
            out.add(ring[(int) (s % CAPACITY)]);
        }
        return new Page(out, Math.max(after, to), missed);
    }

    public static long nowMicros() {
        java.time.Instant t = java.time.Instant.now();
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }
}
