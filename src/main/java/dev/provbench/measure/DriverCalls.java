package dev.provbench.measure;

import dev.provbench.csi.CsiMethods;
import dev.provbench.evidence.CounterTrack;
import dev.provbench.evidence.DriverCounts;
import dev.provbench.load.RunWindow;
import dev.provbench.report.Rows;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Row;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;
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

    /**
     * The mock driver's own view of the window: {@code createVolume}/{@code deleteVolume} are the volumes it
     * created and deleted (idempotent repeats not counted); {@code *Calls} are the calls it answered OK
     * (csi-provisioner repeats DeleteVolume until the PV is gone). {@code errors} are the error answers the
     * driver gave of itself and {@code injected} those it gave because a fault rule said so, both by
     * "Method CODE". {@code resets}: restarts of the driver seen in the window (its figures sum the segments).
     * {@code source} says how they were read.
     */
    public record Driver(Long createVolume, Long deleteVolume, Long createVolumeCalls, Long deleteVolumeCalls,
                         Map<String, Long> errors, Map<String, Long> injected, String source, Integer resets,
                         Agreement agreement) {
    }

    /**
     * Whether the driver's volumes agree with the tool's ops: {@code ok} when the driver's creates (deletes) lie
     * in [tool − in flight at start, tool + in flight at end + failed ops + reclaimed claims] — the driver may
     * act for ops that were in flight at an edge or failed on the tool's side —, {@code reset} when the driver
     * restarted in the window (no exact check is possible), {@code mismatch} otherwise.
     */
    public record Agreement(String status, long toolCreates, long driverCreates, long toolDeletes,
                            long driverDeletes, long allowedBelow, long allowedAbove) {
    }

    public static final SectionKind<Driver> DRIVER = SectionKind.of("driver", Driver.class).rows(DriverCalls::rows);

    private static List<Row> rows(Driver dr) {
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("driver", "volumes created / deleted", dr.createVolume() + " / " + dr.deleteVolume() + " ("
                + dr.source() + ")" + (dr.resets() == null ? "" : " — RESET " + dr.resets() + "x, segments summed")));
        rows.add(new Row("driver", "CreateVolume / DeleteVolume calls OK", dr.createVolumeCalls() + " / "
                + dr.deleteVolumeCalls()));
        if (dr.errors() != null) {
            rows.add(new Row("driver", "error answers (its own)", Rows.map(dr.errors())));
        }
        if (dr.injected() != null) {
            rows.add(new Row("driver", "error answers (injected)", Rows.map(dr.injected())));
        }
        Agreement a = dr.agreement();
        if (a != null) {
            rows.add(new Row("driver", "agrees with the tool", a.status() + " — volumes created " + a.driverCreates()
                    + " vs creates " + a.toolCreates() + ", deleted " + a.driverDeletes() + " vs deletes "
                    + a.toolDeletes() + " (allowed −" + a.allowedBelow() + " … +" + a.allowedAbove() + ")"));
        }
        return rows;
    }

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
        Agreement agreement = agreement(d.get(Operations.OPS), creates, deletes, inc.resets());
        d.put(DRIVER, new Driver(creates, deletes,
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

    /** The check {@link Agreement} defines; null without the ops section. */
    static Agreement agreement(Operations.Ops o, long driverCreates, long driverDeletes, int resets) {
        if (o == null) {
            return null;
        }
        long below = o.inFlightAtStart();
        long above = o.inFlightAtEnd() + o.failures() + o.reclaimed();
        boolean ok = driverCreates >= o.creates() - below && driverCreates <= o.creates() + above
                && driverDeletes >= o.deletes() - below && driverDeletes <= o.deletes() + above;
        String status = resets > 0 ? "reset" : ok ? "ok" : "mismatch";
        return new Agreement(status, o.creates(), driverCreates, o.deletes(), driverDeletes, below, above);
    }
}
