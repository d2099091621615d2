package dev.provbench.measure;

import dev.provbench.csi.CsiMethods;
import dev.provbench.evidence.CounterTrack;
import dev.provbench.evidence.DriverCounts;
import dev.provbench.load.RunWindow;
import dev.provbench.report.RunReport;
import org.jboss.logging.Logger;

import java.util.Map;
import java.util.TreeMap;

/**
 * {@code driver}: the mock driver's own counts over the window — volumes it created and deleted, the
 * CreateVolume/DeleteVolume calls it answered OK, its error answers by method and code (its own and injected
 * ones apart) — and whether they agree with the tool's ops. Read once a second through the run and at the
 * window's edges (in-process with {@code --local}, else from {@code --driver-url}); the increase over the
 * window is {@link CounterTrack}'s, so a driver that restarted is summed over its segments and flagged.
 */
public final class DriverCalls implements Measurement {
    private static final Logger LOG = Logger.getLogger(DriverCalls.class);
    private final DriverCounts source;
    private final CounterTrack track = new CounterTrack();
    private volatile boolean warned;
    private long from = -1;
    private long to = -1;

    public DriverCalls(DriverCounts source) {
        this.source = source;
    }

    /**
     * One read, stamped when it starts; returns the stamp. Reads never overlap (the sampler and the window's
     * edges run on different threads): overlapping reads could finish out of order, and a counter would then
     * seem to drop — a false restart.
     */
    private synchronized long read() {
        long nanos = System.nanoTime();
        try {
            DriverCounts.Read r = source.read();
            track.add(nanos, r.counters(), r.startTime());
        } catch (Exception e) {
            if (!warned) { // once: a driver that is down says so every second otherwise
                warned = true;
                LOG.warnf("cannot read the driver's counts from %s: %s", source.source(), e.getMessage());
            }
        }
        return nanos;
    }

    @Override
    public void sample(long nanos) {
        read();
    }

    @Override
    public void windowStart(RunWindow w) {
        from = read(); // if this read fails, the last one before it stands for the edge
    }

    @Override
    public void windowEnd(RunWindow w) {
        to = read();
    }

    @Override
    public void report(ReportDraft d) {
        CounterTrack.Increase inc = from < 0 || to < 0 ? null : track.increase(from, to);
        if (inc == null) {
            d.warn("the driver's counts could not be read from " + source.source() + " at the window's edges");
            return;
        }
        Map<String, Long> errors = new TreeMap<>();
        Map<String, Long> injected = new TreeMap<>();
        inc.values().forEach((k, v) -> {
            String[] p = k.split(" ");
            if (p.length == 3 && p[0].equals("calls") && !p[2].equals("OK")) {
                long real = Math.round(v) - inc.count(DriverCounts.injected(p[1], p[2]));
                if (real > 0) {
                    errors.put(p[1] + " " + p[2], real);
                }
            } else if (p.length == 3 && p[0].equals("injected") && v > 0) {
                injected.put(p[1] + " " + p[2], Math.round(v));
            }
        });
        long creates = inc.count(DriverCounts.VOLUMES_CREATED);
        long deletes = inc.count(DriverCounts.VOLUMES_DELETED);
        RunReport.Agreement agreement = agreement(d.ops(), creates, deletes, inc.resets());
        d.driver(new RunReport.Driver(creates, deletes,
                inc.count(DriverCounts.calls(CsiMethods.CREATE_VOLUME, "OK")),
                inc.count(DriverCounts.calls(CsiMethods.DELETE_VOLUME, "OK")),
                errors.isEmpty() ? null : errors, injected.isEmpty() ? null : injected, source.source(),
                inc.resets() == 0 ? null : inc.resets(), agreement));
        if (inc.resets() > 0) {
            d.warn("the driver restarted " + inc.resets() + " time(s) in the window: its counts sum the segments "
                    + "(as Prometheus' increase()) and miss what it counted between its last read and each restart");
        } else if (agreement != null && agreement.status().equals("mismatch")) {
            d.warn("the driver's volumes disagree with the tool's ops: driver created " + creates + " and deleted "
                    + deletes + ", the tool completed " + agreement.toolCreates() + " creates and "
                    + agreement.toolDeletes() + " deletes (allowed: −" + agreement.allowedBelow() + " … +"
                    + agreement.allowedAbove() + ")");
        }
    }

    /** The check {@link RunReport.Agreement} defines; null without the ops section. */
    static RunReport.Agreement agreement(RunReport.Ops o, long driverCreates, long driverDeletes, int resets) {
        if (o == null) {
            return null;
        }
        long below = o.inFlightAtStart();
        long above = o.inFlightAtEnd() + o.failures() + o.reclaimed();
        boolean ok = driverCreates >= o.creates() - below && driverCreates <= o.creates() + above
                && driverDeletes >= o.deletes() - below && driverDeletes <= o.deletes() + above;
        String status = resets > 0 ? "reset" : ok ? "ok" : "mismatch";
        return new RunReport.Agreement(status, o.creates(), driverCreates, o.deletes(), driverDeletes, below, above);
    }
}
