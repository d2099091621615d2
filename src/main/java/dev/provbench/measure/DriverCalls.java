package dev.provbench.measure;

import dev.provbench.csi.CsiMethods;
import dev.provbench.evidence.CounterTrack;
import dev.provbench.evidence.DriverCounts;
import dev.provbench.load.RunWindow;
import dev.provbench.load.Stamps;
import dev.provbench.report.Rows;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Row;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code driver}: what the mock driver did for the run's own volumes in the window — volumes created and deleted,
 * the CreateVolume/DeleteVolume calls answered OK, error answers by method and code (its own and injected ones
 * apart) — and whether they agree with the tool's ops; beside them, the driver's totals over the same window (every
 * tenant's). The own figures come from the driver's call log ({@link DriverCallTrack}), the run's volumes told by
 * their name {@code pvc-<claim UID>} (CreateVolume) and the volume id CreateVolume answered for it (DeleteVolume),
 * so another run using the same driver changes the totals only. The totals are its counters, read once a second
 * through the run and at the window's edges (in-process with {@code --local}, else from {@code --driver-url}); their
 * increase over the window is {@link CounterTrack}'s, so a driver that restarted is summed over its segments and
 * flagged.
 */
public final class DriverCalls implements Measurement {

    /**
     * The driver's view of the window. {@code scope}: {@code run} — the figures beside it are the run's own volumes
     * (from the driver's call log) — or {@code driver} when the call log could not be read and only the totals are
     * known (then the own figures are null). {@code createVolume}/{@code deleteVolume}: volumes created and deleted
     * (idempotent repeats not counted); {@code *Calls}: calls answered OK (csi-provisioner repeats DeleteVolume until
     * the PV is gone); {@code errors}: the driver's own error answers and {@code injected} those a fault rule made,
     * both by "Method CODE". {@code otherCalls}: CreateVolume/DeleteVolume calls of volumes not the run's in the
     * window (another tenant of the driver). {@code incomplete}: why the own figures may be short (calls overwritten
     * in the driver's ring before they were read, more than kept, an edge unreadable), else null. {@code totals}: the
     * driver's counters over the window, every tenant's. {@code resets}: restarts of the driver seen in the window.
     * {@code source}: how they were read.
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Driver(String scope, Long createVolume, Long deleteVolume, Long createVolumeCalls,
                         Long deleteVolumeCalls, Map<String, Long> errors, Map<String, Long> injected, Long otherCalls,
                         String incomplete, Totals totals, String source, Integer resets, Agreement agreement) {
    }

    /** The driver's counters over the window: every tenant's volumes and calls, as {@link Driver}'s. */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Totals(long createVolume, long deleteVolume, long createVolumeCalls, long deleteVolumeCalls,
                         Map<String, Long> errors, Map<String, Long> injected) {
    }

    /**
     * Whether the driver's volumes agree with the tool's ops: {@code ok} when the driver's creates (deletes) lie
     * in [tool − in flight at start, tool + in flight at end + failed ops + reclaimed claims] — the driver may
     * act for ops that were in flight at an edge or failed on the tool's side —, {@code reset} when the driver
     * restarted in the window (no exact check is possible), {@code incomplete} when calls of the window were lost
     * before they were read, {@code mismatch} otherwise. {@code basis}: {@code own volumes}, or {@code driver totals}
     * when the call log could not be read (then another tenant makes it a mismatch).
     */
    public record Agreement(String status, String basis, long toolCreates, long driverCreates, long toolDeletes,
                            long driverDeletes, long allowedBelow, long allowedAbove) {
    }

    public static final SectionKind<Driver> DRIVER = SectionKind.of("driver", Driver.class).scope(Scope.DRIVER).rows(DriverCalls::rows);

    /** The calls answered OK and the error answers, its own and injected: the run's, or the totals'. */
    private static void calls(List<Row> rows, long createCalls, long deleteCalls, Map<String, Long> errors,
            Map<String, Long> injected) {
        rows.add(new Row("driver", "  CreateVolume / DeleteVolume calls OK", createCalls + " / " + deleteCalls));
        if (errors != null) {
            rows.add(new Row("driver", "  error answers (its own)", Rows.map(errors)));
        }
        if (injected != null) {
            rows.add(new Row("driver", "  error answers (injected)", Rows.map(injected)));
        }
    }

    private static List<Row> rows(Driver dr) {
        List<Row> rows = new ArrayList<>();
        String reset = dr.resets() == null ? "" : " — RESET " + dr.resets() + "x, segments summed";
        if (dr.createVolume() != null) {
            rows.add(new Row("driver", "the run's volumes created / deleted", dr.createVolume() + " / "
                    + dr.deleteVolume() + " (" + dr.source() + ")" + reset));
            calls(rows, dr.createVolumeCalls(), dr.deleteVolumeCalls(), dr.errors(), dr.injected());
            if (dr.incomplete() != null) {
                rows.add(new Row("driver", "  INCOMPLETE", dr.incomplete()));
            }
        }
        Totals t = dr.totals();
        if (t != null) {
            rows.add(new Row("driver", "totals (shared) created / deleted", t.createVolume()
                    + " / " + t.deleteVolume() + (dr.createVolume() == null ? " (" + dr.source() + ")" + reset : "")
                    + (dr.otherCalls() == null || dr.otherCalls() == 0 ? ""
                    : "; " + dr.otherCalls() + " calls of volumes not the run's")));
            if (dr.createVolume() == null) {
                calls(rows, t.createVolumeCalls(), t.deleteVolumeCalls(), t.errors(), t.injected());
            }
        }
        Agreement a = dr.agreement();
        if (a != null) {
            rows.add(new Row("driver", "agrees with the tool", a.status() + " — " + a.basis() + ": created "
                    + a.driverCreates() + " vs creates " + a.toolCreates() + ", deleted " + a.driverDeletes()
                    + " vs deletes " + a.toolDeletes() + " (allowed −" + a.allowedBelow() + " … +" + a.allowedAbove()
                    + ")"));
        }
        return rows;
    }

    private static final Logger LOG = Logger.getLogger(DriverCalls.class);
    private final DriverCounts source;
    private final DriverCallTrack calls;
    private final Stamps stamps;
    private final java.util.function.Supplier<String> provisioner;
    private volatile String name;
    private final CounterTrack track = new CounterTrack();
    private volatile boolean warned;
    private long from = -1;
    private long to = -1;

    /**
     * @param calls  the driver's call log as the run reads it, or null (then only the totals are known)
     * @param stamps the run's claims, which tell its volumes ({@link Stamps#ownVolume})
     */
    public DriverCalls(DriverCounts source, DriverCallTrack calls, Stamps stamps) {
        this(source, calls, stamps, () -> null);
    }

    /**
     * As above; {@code provisioner}: the run's StorageClass's provisioner once known (null: not known), which the
     * driver's own name must be for its figures to be about the run's volumes at all.
     */
    public DriverCalls(DriverCounts source, DriverCallTrack calls, Stamps stamps,
            java.util.function.Supplier<String> provisioner) {
        this.source = source;
        this.calls = calls;
        this.stamps = stamps;
        this.provisioner = provisioner;
    }

    @Override
    public void runStart(RunWindow w, long stepNanos, int intervals) {
        if (calls != null) {
            calls.begin();
        }
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
            if (r.name() != null) {
                name = r.name();
            }
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
        if (calls != null) {
            calls.sample();
        }
    }

    @Override
    public void windowStart(RunWindow w) {
        from = read(); // if this read fails, the last one before it stands for the edge
        if (calls != null) {
            calls.windowStart();
        }
    }

    @Override
    public void windowEnd(RunWindow w) {
        to = read();
        if (calls != null) {
            calls.windowEnd();
        }
    }

    @Override
    public void finish(RunWindow w) {
        if (calls != null) {
            calls.finish();
        }
    }

    @Override
    public void report(ReportDraft d) {
        CounterTrack.Increase inc = from < 0 || to < 0 ? null : track.increase(from, to);
        Totals totals = inc == null ? null : totals(inc);
        Own own = own();
        if (totals == null && own == null) {
            d.warn("the driver's counts could not be read from " + source.source() + " at the window's edges");
            return;
        }
        int resets = inc == null ? 0 : inc.resets();
        Operations.Ops ops = d.get(Operations.OPS);
        Agreement agreement = own != null
                ? agreement(ops, "own volumes", own.created, own.deleted, resets, own.incomplete != null)
                : agreement(ops, "driver totals", totals.createVolume(), totals.deleteVolume(), resets, false);
        d.put(DRIVER, own == null
                ? new Driver("driver", null, null, null, null, null, null, null, null, totals, source.source(),
                resets == 0 ? null : resets, agreement)
                : new Driver("run", own.created, own.deleted, own.createCalls, own.deleteCalls,
                own.errors.isEmpty() ? null : own.errors, own.injected.isEmpty() ? null : own.injected, own.others,
                own.incomplete, totals, calls.source().source(), resets == 0 ? null : resets, agreement));
        if (resets > 0) {
            d.warn("the driver restarted " + resets + " time(s) in the window: its counts sum the segments "
                    + "(as Prometheus' increase()) and miss what it counted between its last read and each restart");
        } else if (agreement != null && agreement.status().equals("mismatch")) {
            d.warn("the driver's volumes disagree with the tool's ops (" + agreement.basis() + "): driver created "
                    + agreement.driverCreates() + " and deleted " + agreement.driverDeletes() + ", the tool completed "
                    + agreement.toolCreates() + " creates and " + agreement.toolDeletes() + " deletes (allowed: −"
                    + agreement.allowedBelow() + " … +" + agreement.allowedAbove() + ")"
                    + (own == null ? "; the driver's call log was not readable, so other tenants' volumes count too"
                    : ""));
        }
        if (own != null && own.incomplete != null) {
            d.warn("the driver's figures for the run's volumes may be short: " + own.incomplete);
        }
        String expected = provisioner.get();
        if (name != null && expected != null && !name.equals(expected)) {
            d.warn("the driver read at " + source.source() + " is '" + name + "', but the run's StorageClass is "
                    + "provisioned by '" + expected + "': that driver never sees the run's volumes, so the driver "
                    + "section is about another driver (--driver-url)");
        }
    }

    /** The driver's counters over the window (every tenant's). */
    private static Totals totals(CounterTrack.Increase inc) {
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
        return new Totals(inc.count(DriverCounts.VOLUMES_CREATED), inc.count(DriverCounts.VOLUMES_DELETED),
                inc.count(DriverCounts.calls(CsiMethods.CREATE_VOLUME, "OK")),
                inc.count(DriverCounts.calls(CsiMethods.DELETE_VOLUME, "OK")),
                errors.isEmpty() ? null : errors, injected.isEmpty() ? null : injected);
    }

    /** The run's own volumes' calls in the window. */
    private static final class Own {
        long created;
        long deleted;
        long createCalls;
        long deleteCalls;
        long others;
        final Map<String, Long> errors = new TreeMap<>();
        final Map<String, Long> injected = new TreeMap<>();
        String incomplete;
    }

    /** The own figures from the driver's call log; null when it could not be read at the window's edges. */
    private Own own() {
        if (calls == null || stamps == null || calls.windowProblem() != null && calls.window().isEmpty()) {
            return null;
        }
        java.util.Set<String> ids = calls.volumeIds(stamps::ownVolume);
        Own o = new Own();
        for (DriverCallTrack.WindowCall c : calls.window()) {
            boolean mine = c.create() ? stamps.ownVolume(c.key()) : ids.contains(c.key());
            if (!mine) {
                o.others++;
                continue;
            }
            String method = c.create() ? CsiMethods.CREATE_VOLUME : CsiMethods.DELETE_VOLUME;
            if ("OK".equals(c.code())) {
                if (c.create()) {
                    o.createCalls++;
                    o.created += c.firstOk() ? 1 : 0;
                } else {
                    o.deleteCalls++;
                    o.deleted += c.firstOk() ? 1 : 0;
                }
            } else {
                (c.injected() ? o.injected : o.errors).merge(method + " " + c.code(), 1L, Long::sum);
            }
        }
        List<String> why = new ArrayList<>();
        if (calls.windowProblem() != null) {
            why.add(calls.windowProblem());
        }
        if (calls.missedInWindow() > 0) {
            why.add(calls.missedInWindow() + " calls of the window were overwritten in the driver's ring (the last "
                    + dev.provbench.csi.CallLog.CAPACITY + ") before they were read");
        }
        if (calls.overflow() > 0) {
            why.add(calls.overflow() + " calls were of volumes past the " + DriverCallTrack.MAX_CALLS + " remembered, "
                    + "so whether each was its volume's first is not known");
        }
        if (calls.windowOverflow() > 0) {
            why.add(calls.windowOverflow() + " calls of the window were past the " + DriverCallTrack.MAX_WINDOW
                    + " kept");
        }
        if (stamps.ownOverflow() > 0) {
            why.add(stamps.ownOverflow() + " of the run's claims were past those kept, so their volumes were not "
                    + "told as the run's");
        }
        o.incomplete = why.isEmpty() ? null : String.join("; ", why);
        return o;
    }

    /** The check {@link Agreement} defines; null without the ops section. */
    static Agreement agreement(Operations.Ops o, String basis, long driverCreates, long driverDeletes, int resets,
            boolean incomplete) {
        if (o == null) {
            return null;
        }
        long below = o.inFlightAtStart();
        long above = o.inFlightAtEnd() + o.failures() + o.reclaimed();
        boolean ok = driverCreates >= o.creates() - below && driverCreates <= o.creates() + above
                && driverDeletes >= o.deletes() - below && driverDeletes <= o.deletes() + above;
        String status = resets > 0 ? "reset" : ok ? "ok" : incomplete ? "incomplete" : "mismatch";
        return new Agreement(status, basis, o.creates(), driverCreates, o.deletes(), driverDeletes, below, above);
    }
}
