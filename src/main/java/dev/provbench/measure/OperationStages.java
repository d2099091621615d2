package dev.provbench.measure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.provbench.csi.CallLog;
import dev.provbench.evidence.DriverCallSource;
import dev.provbench.load.LoadRun;
import dev.provbench.load.OpLog;
import dev.provbench.load.RunWindow;
import dev.provbench.load.Stamps;
import dev.provbench.report.HtmlFormat;
import dev.provbench.report.ReportBuilder;
import dev.provbench.report.Rows;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Row;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code latency.stages}: where each op's time goes. Every create and delete completed in the window is cut at
 * its stamps ({@link Stamps}: the tool's own steps and what its informers saw; the driver's {@link CallLog}: when
 * CreateVolume/DeleteVolume was received and first answered OK, matched by the volume's name or id) into
 * consecutive stages, so the stages' means add up to the op's mean total time exactly and, without
 * {@code token wait}, to {@code latency.*.pipeline}'s mean. Ops lacking a stamp (a watch event not seen, a
 * driver call not read, poll mode) are left out and counted by the first stamp they lack. Without a readable
 * driver the driver's two stamps are not stages. A create whose first POST's answer was lost (adopted, or sent
 * again) has no "answered" stamp and is left out under it. With {@code records}, also one NDJSON line per
 * completed op (every phase, those creates included, flagged {@code answerLost}).
 */
public final class OperationStages implements Measurement {

    /**
     * One stage of an op, over the window's ops that have every stamp: from the previous stamp to this one (ms).
     *
     * @param share    this stage's mean / the sum of the stages' means (the op's mean total time)
     * @param clocks   {@code tool}, {@code driver}, or {@code tool+driver} when its two ends come from two
     *                 processes' clocks
     * @param negative ops whose stage came out below 0 (possible only across two clocks or two observers), else null
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Stage(String stage, long n, double mean, double p50, double p90, double p99, double max,
                        double share, String clocks, Long negative) {
    }

    /**
     * @param complete  window ops with every stamp (the stages' n)
     * @param missing   the others, by the first stamp each lacks
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record StageOps(long complete, Map<String, Long> missing) {
    }

    /**
     * @param dominant     per kind, the stage with the largest mean
     * @param driverCalls  where the driver's stamps came from, or null when no driver was readable
     * @param twoClocks    true when a stage mixes the tool's clock with a driver's on another machine (then
     *                     those stages may be off by the clocks' offset)
     * @param note         what may make these figures wrong (calls missed, a source unreadable), or null
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Stages(List<Stage> create, List<Stage> delete, Map<String, String> dominant,
                         Map<String, StageOps> ops, String driverCalls, boolean twoClocks, String note) {
    }

    public static final SectionKind<Stages> STAGES = SectionKind.of("latency.stages", Stages.class).scope(Scope.STAGES).rows(st -> {
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("stages", "create (mean ms)", line(st.create(), st.ops().get("create"))));
        rows.add(new Row("stages", "delete (mean ms)", line(st.delete(), st.ops().get("delete"))));
        if (st.dominant() != null) {
            rows.add(new Row("stages", "dominant", Rows.map2(st.dominant())));
        }
        if (st.note() != null) {
            rows.add(new Row("stages", "note", st.note()));
        }
        return rows;
    }).html((st, r) -> "<h2>Where the time goes</h2>\n"
            + waterfall("waterfall-create", "create: mean per stage (window ops with every stamp)", st.create())
            + waterfall("waterfall-delete", "delete: mean per stage (window ops with every stamp)", st.delete())
            + (st.note() == null ? "" : "<p class=\"s\">" + HtmlFormat.esc(st.note()) + "</p>\n"));

    static String line(List<Stage> stages, StageOps ops) {
        StringBuilder b = new StringBuilder();
        for (Stage x : stages) {
            b.append(b.length() == 0 ? "" : " → ").append(x.stage()).append(' ').append(Rows.num(x.mean()))
                    .append(x.negative() == null ? "" : " (" + x.negative() + " negative)");
        }
        long n = ops == null ? 0 : ops.complete();
        b.append(" (n=").append(n);
        if (ops != null && ops.missing() != null) {
            b.append("; left out, by first missing stamp: ").append(Rows.map(ops.missing()));
        }
        return b.append(')').toString();
    }

    /** One row per stage: a bar from the mean start to the mean end of the stage (means add up to the op's). */
    static String waterfall(String id, String title, List<Stage> stages) {
        int w = 900, label = 230, row = 22, top = 24;
        int h = top + row * Math.max(1, stages.size()) + 24;
        double total = stages.stream().mapToDouble(x -> Math.max(0, x.mean())).sum();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "data-stages=\"%d\" role=\"img\"><text x=\"6\" y=\"16\">%s</text>\n", id, w, h, w, h,
                stages.size(), HtmlFormat.esc(title)));
        double at = 0;
        double scale = total > 0 ? (w - label - 120) / total : 0;
        for (int i = 0; i < stages.size(); i++) {
            Stage x = stages.get(i);
            double mean = Math.max(0, x.mean());
            int y = top + i * row;
            b.append(String.format(Locale.ROOT, "<text x=\"6\" y=\"%d\">%s</text>", y + 15, HtmlFormat.esc(x.stage())));
            b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                    + "fill=\"%s\"><title>%s: mean %s ms, p50 %s, p99 %s, n=%d</title></rect>", label + at * scale, y + 3,
                    Math.max(1, mean * scale), row - 6, x.clocks().equals("tool+driver") ? "#d9480f" : "#1f6feb",
                    HtmlFormat.esc(x.stage()), Rows.num(x.mean()), Rows.num(x.p50()), Rows.num(x.p99()), x.n()));
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s ms (%.0f %%)</text>\n",
                    label + (at + mean) * scale + 4, y + 15, Rows.num(x.mean()), x.share() * 100));
            at += mean;
        }
        b.append(String.format(Locale.ROOT, "<text x=\"6\" y=\"%d\">orange: the stage's ends come from the "
                + "clocks of two machines; total %s ms</text></svg>\n", h - 6, Rows.num(total)));
        return b.toString();
    }
    static final List<String> CREATE = List.of("token wait", "POST answered", "claim marked for provisioner",
            "CreateVolume received", "CreateVolume answered", "PV seen", "Bound");
    static final List<String> DELETE = List.of("token wait", "DELETE answered", "claim gone", "PV Released",
            "DeleteVolume received", "DeleteVolume answered", "PV gone");
    /** Stamp names in order (the end of each stage), for records and for "missing". */
    static final List<String> CREATE_STAMPS = List.of("sent", "answered", "marked", "createVolumeReceived",
            "createVolumeAnswered", "pvSeen", "bound");
    static final List<String> DELETE_STAMPS = List.of("sent", "answered", "claimGone", "pvReleased",
            "deleteVolumeReceived", "deleteVolumeAnswered", "pvGone");

    static final String NEGATIVE = "its start was seen by the tool's watch after its end by the driver (two observers"
            + ", or two clocks); the stages still add up, the one before is longer by as much";

    private final LoadRun run;
    private final DriverCallTrack track;
    private final DriverCallSource driver;
    private final Path records;
    private RunWindow window;

    /** @param track null when no driver's calls can be read; {@code records} null for none */
    public OperationStages(LoadRun run, DriverCallTrack track, Path records) {
        this.run = run;
        this.track = track;
        this.driver = track == null ? null : track.source();
        this.records = records;
    }

    @Override
    public synchronized void runStart(RunWindow w, long stepNanos, int intervals) {
        window = w;
        if (track != null) { // the calls before this run are not its own: start after them
            track.begin();
        }
    }

    @Override
    public synchronized void sample(long nanos) {
        if (track != null) {
            track.sample();
        }
    }

    @Override
    public synchronized void windowStart(RunWindow w) {
        if (track != null) {
            track.windowStart();
        }
    }

    @Override
    public synchronized void windowEnd(RunWindow w) {
        if (track != null) {
            track.windowEnd();
        }
    }

    @Override
    public synchronized void finish(RunWindow w) {
        window = w;
        if (track != null) {
            track.finish();
        }
    }

    /** Epoch µs of the driver → this run's nanoTime, through one offset taken at the run's start. */
    private long toNanos(long epochMicros) {
        Instant t0 = window.runStart();
        long t0Micros = t0.getEpochSecond() * 1_000_000L + t0.getNano() / 1000;
        return window.runStartNanos() + (epochMicros - t0Micros) * 1000;
    }

    /** The op's stamps in stage order (length 8: start + 7 ends), 0 where missing. */
    private long[] stamps(Stamps.Op op) {
        long[] a = op.at();
        DriverCallTrack.Seen s = op.key() == null || track == null ? null : track.seen(op.create(), op.key());
        long rec = s == null || s.received == 0 ? 0 : toNanos(s.received);
        long ans = s == null || s.answered == 0 ? 0 : toNanos(s.answered);
        return new long[]{a[Stamps.START], a[Stamps.SENT], a[Stamps.ANSWERED], a[Stamps.SEEN_A],
                op.create() ? rec : a[Stamps.SEEN_B], op.create() ? ans : rec, op.create() ? a[Stamps.SEEN_B] : ans,
                a[Stamps.END]};
    }

    /** Which stages are in use: all, or without the driver's two when no driver was read. */
    private boolean[] used() {
        boolean[] u = new boolean[7];
        Arrays.fill(u, true);
        if (driver == null) {
            u[3] = false; // create: CreateVolume received / delete: DeleteVolume received
            u[4] = false;
        }
        return u;
    }

    /**
     * The stages of the window's ops completed so far (the live page's waterfall; the same definition as the
     * report's), at most once a second; null before the window has ops.
     */
    public synchronized Stages live() {
        long now = System.nanoTime();
        if (window == null || run.log() == null || now - liveAt < 1_000_000_000L && liveAt != 0) {
            return lastLive;
        }
        liveAt = now;
        lastLive = run.log().window().opened() ? stages(run.stamps().finished()) : null;
        return lastLive;
    }

    private long liveAt;
    private Stages lastLive;

    private Stages stages(List<Stamps.Op> ops) {
        boolean[] used = used();
        boolean twoClocks = driver != null && !driver.sameClock();
        Map<String, StageOps> counts = new LinkedHashMap<>();
        List<Stage> create = stages(ops, true, used, counts);
        List<Stage> delete = stages(ops, false, used, counts);
        Map<String, String> dominant = new LinkedHashMap<>();
        dominant(create).ifPresent(s -> dominant.put("create", s));
        dominant(delete).ifPresent(s -> dominant.put("delete", s));
        List<String> notes = new ArrayList<>();
        if (driver == null) {
            notes.add("no driver's calls to read (--driver-url): CreateVolume/DeleteVolume are inside the next stage");
        } else if (track.error() != null) {
            notes.add("the driver's calls could not be read (" + track.error() + "): ops without them are left out");
        }
        long missed = track == null ? 0 : track.missed();
        if (missed > 0) {
            notes.add(missed + " driver calls were overwritten before they were read");
        }
        long overflow = track == null ? 0 : track.overflow();
        if (overflow > 0 || run.stamps().overflow() > 0) {
            notes.add("more ops or calls than kept: " + (overflow + run.stamps().overflow()) + " left out");
        }
        if (twoClocks) {
            notes.add("the driver runs on another machine: stages marked tool+driver mix two clocks");
        }
        return new Stages(create, delete, dominant.isEmpty() ? null : dominant, counts,
                driver == null ? null : driver.source(), twoClocks, notes.isEmpty() ? null : String.join("; ", notes));
    }

    @Override
    public synchronized void report(ReportDraft d) {
        List<Stamps.Op> ops = run.log() == null ? List.of() : run.stamps().finished();
        boolean[] used = used();
        Stages st = stages(ops);
        d.put(STAGES, st);
        List<Stage> create = st.create();
        List<Stage> delete = st.delete();
        // a negative stage is flagged in its row (two observers: the tool's watch saw the step before it late);
        // a warning only where it may be two clocks' offset, or where the mean itself is below 0
        for (List<Stage> kind : List.of(create, delete)) {
            for (Stage s : kind) {
                if (s.negative() != null && (st.twoClocks() && s.clocks().equals("tool+driver") || s.mean() < 0)) {
                    d.warn((kind == create ? "create" : "delete") + " stage '" + s.stage() + "' came out negative "
                            + "for " + s.negative() + " of " + s.n() + " ops (" + s.clocks() + "): " + NEGATIVE);
                }
            }
        }
        if (records != null) {
            write(ops, used, d);
        }
    }

    private static java.util.Optional<String> dominant(List<Stage> stages) {
        return stages.stream().filter(s -> s.n() > 0).max(java.util.Comparator.comparingDouble(Stage::mean))
                .map(Stage::stage);
    }

    private static String clocks(boolean create, int stage, boolean driverRead, boolean sameClock) {
        boolean[] ends = driverEnds(create);
        boolean from = stage > 0 && ends[stage - 1] && driverRead;
        boolean to = ends[stage] && driverRead;
        if (from && to) {
            return "driver";
        }
        return from || to ? (sameClock ? "tool+driver (same clock)" : "tool+driver") : "tool";
    }

    /** Whether stage i's end stamp is the driver's. */
    private static boolean[] driverEnds(boolean create) {
        return create ? new boolean[]{false, false, false, true, true, false, false}
                : new boolean[]{false, false, false, false, true, true, false};
    }

    private List<Stage> stages(List<Stamps.Op> ops, boolean create, boolean[] used,
            Map<String, StageOps> counts) {
        List<String> names = create ? CREATE : DELETE;
        List<String> stampNames = create ? CREATE_STAMPS : DELETE_STAMPS;
        List<long[]> durations = new ArrayList<>();
        Map<String, Long> missing = new TreeMap<>();
        for (Stamps.Op op : ops) {
            if (op.create() != create || op.phase() != OpLog.Phase.WINDOW) {
                continue;
            }
            long[] at = stamps(op);
            String lack = at[0] == 0 ? "start" : null;
            for (int i = 0; i < 7 && lack == null; i++) {
                if (used[i] && at[i + 1] == 0) {
                    lack = stampNames.get(i);
                }
            }
            if (lack != null) {
                missing.merge(lack, 1L, Long::sum);
                continue;
            }
            long[] dur = new long[7];
            long prev = at[0];
            for (int i = 0; i < 7; i++) {
                if (used[i]) {
                    dur[i] = at[i + 1] - prev;
                    prev = at[i + 1];
                }
            }
            durations.add(dur);
        }
        counts.put(create ? "create" : "delete", new StageOps(durations.size(),
                missing.isEmpty() ? null : missing));
        double total = 0;
        double[] means = new double[7];
        for (int i = 0; i < 7; i++) {
            if (!used[i] || durations.isEmpty()) {
                continue;
            }
            double sum = 0;
            for (long[] dur : durations) {
                sum += dur[i];
            }
            means[i] = sum / durations.size();
            total += means[i];
        }
        List<Stage> out = new ArrayList<>();
        boolean sameClock = driver == null || driver.sameClock();
        for (int i = 0; i < 7; i++) {
            if (!used[i]) {
                continue;
            }
            int n = durations.size();
            double[] v = new double[n];
            long negative = 0;
            for (int k = 0; k < n; k++) {
                v[k] = durations.get(k)[i] / 1e6;
                if (v[k] < 0) {
                    negative++;
                }
            }
            Arrays.sort(v);
            out.add(new Stage(names.get(i), n, ms(n == 0 ? 0 : means[i] / 1e6), rank(v, 0.50),
                    rank(v, 0.90), rank(v, 0.99), n == 0 ? 0 : ms(v[n - 1]),
                    total > 0 ? ReportBuilder.round(means[i] / total) : 0, clocks(create, i, driver != null, sameClock),
                    negative == 0 ? null : negative));
        }
        return out;
    }

    /** Nearest-rank quantile of sorted values (ms), 0 for none. */
    private static double rank(double[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return ms(sorted[Math.max(0, Math.min(sorted.length - 1, i))]);
    }

    private static double ms(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** One line per completed op: kube-burner's names where they mean the same (timestamp, uuid, pvcName, …). */
    private void write(List<Stamps.Op> ops, boolean[] used, ReportDraft d) {
        ObjectMapper json = new ObjectMapper();
        dev.provbench.load.RunNamespaces spread = dev.provbench.load.RunNamespaces.of(run.config());
        Path tmp = records.resolveSibling(records.getFileName() + ".tmp");
        try (BufferedWriter w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            for (Stamps.Op op : ops) {
                long[] at = stamps(op);
                ObjectNode o = json.createObjectNode();
                o.put("timestamp", iso(at[0]));
                o.put("metricName", op.create() ? "pvcCreateStages" : "pvcDeleteStages");
                o.put("uuid", run.runId());
                o.put("pvcName", op.claim());
                o.put("namespace", spread.ofClaim(op.claim()));
                o.put("storageClass", run.config().storageClass());
                o.put("size", run.config().size());
                o.put("phase", op.phase().name().toLowerCase(java.util.Locale.ROOT));
                if (op.answerLost()) {
                    o.put("answerLost", true);
                }
                if (op.key() != null) {
                    o.put(op.create() ? "volumeName" : "volumeHandle", op.key());
                }
                if (op.create()) { // kube-burner: creation → Pending, creation → Bound (ms)
                    if (at[2] > 0) {
                        o.put("pendingLatency", Math.round((at[2] - at[0]) / 1e6));
                    }
                    o.put("bindingLatency", Math.round((at[7] - at[0]) / 1e6));
                } else {
                    o.put("deletionLatency", Math.round((at[7] - at[0]) / 1e6));
                }
                ObjectNode stamps = o.putObject("stamps");
                stamps.put("start", iso(at[0]));
                List<String> names = op.create() ? CREATE_STAMPS : DELETE_STAMPS;
                for (int i = 0; i < 7; i++) {
                    if (at[i + 1] > 0) {
                        stamps.put(names.get(i), iso(at[i + 1]));
                    }
                }
                ObjectNode stages = o.putObject("stagesMs");
                List<String> stageNames = op.create() ? CREATE : DELETE;
                long prev = at[0];
                for (int i = 0; i < 7; i++) {
                    if (used[i] && at[i + 1] > 0 && prev > 0) {
                        stages.put(stageNames.get(i), ms((at[i + 1] - prev) / 1e6));
                        prev = at[i + 1];
                    } else if (used[i]) {
                        prev = 0; // a stage after a missing stamp is not known
                    }
                }
                w.write(json.writeValueAsString(o));
                w.newLine();
            }
        } catch (java.io.IOException e) {
            d.warn("--records: could not write " + records + " (" + e.getClass().getSimpleName() + ")");
            return;
        }
        try {
            Files.move(tmp, records, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.io.IOException e) {
            d.warn("--records: could not write " + records + " (" + e.getClass().getSimpleName() + ")");
        }
    }

    private String iso(long nanos) {
        return nanos == 0 ? null : window.at(nanos).toString();
    }
}
