package dev.provbench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The report as labelled rows, shared by the table and Markdown formats. */
public final class Rows {
    record Row(String section, String label, String value) {
    }

    private Rows() {
    }

    public static String num(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return String.format(Locale.ROOT, "%,d", (long) v);
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%,.1f" : "%.3f", v);
    }

    static String lat(RunReport.Latency l) {
        if (l == null || l.count() == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "p50 %s  p90 %s  p99 %s  p99.9 %s  max %s ms (n=%d)", num(l.p50()),
                num(l.p90()), num(l.p99()), num(l.p999()), num(l.max()), l.count());
    }

    static String stages(List<RunReport.Stage> stages, RunReport.StageOps ops) {
        StringBuilder b = new StringBuilder();
        for (RunReport.Stage x : stages) {
            b.append(b.length() == 0 ? "" : " → ").append(x.stage()).append(' ').append(num(x.mean()))
                    .append(x.negative() == null ? "" : " (" + x.negative() + " negative)");
        }
        long n = ops == null ? 0 : ops.complete();
        b.append(" (n=").append(n);
        if (ops != null && ops.missing() != null) {
            b.append("; left out, by first missing stamp: ").append(map(ops.missing()));
        }
        return b.append(')').toString();
    }

    static String map2(Map<String, String> m) {
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(": ").append(v));
        return b.toString();
    }

    static String map(Map<String, Long> m) {
        if (m == null || m.isEmpty()) {
            return "-";
        }
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append('=').append(v));
        return b.toString();
    }

    static String bytes(Long b) {
        return b == null ? "-" : String.format(Locale.ROOT, "%.0f MiB", b / 1048576.0);
    }

    static String resources(RunReport.Resources x) {
        return (x.cpuCoresWindow() == null ? "cpu -" : "cpu " + num(x.cpuCoresWindow()) + " cores") + " (idle "
                + (x.cpuCoresIdle() == null ? "-" : num(x.cpuCoresIdle())) + "), "
                + (x.cpuSecondsPerOp() == null ? "-" : num(x.cpuSecondsPerOp() * 1000)) + " ms/op, rss idle "
                + bytes(x.rssBytesIdle()) + " peak " + bytes(x.rssBytesPeak())
                + (x.resets() == null ? "" : ", resets: " + x.resets()) + (x.note() == null ? "" : " — " + x.note());
    }

    static List<Row> of(RunReport r) {
        List<Row> rows = new ArrayList<>();
        RunReport.Config c = r.config();
        rows.add(new Row("run", "id", r.runId() + " (" + r.mode() + ")"));
        rows.add(new Row("run", "tool", r.tool().name() + " " + r.tool().version()));
        rows.add(new Row("run", "config", c.threads() + " workers, " + (c.cycles() != null ? c.cycles() + " cycles"
                : c.duration()) + " window after warm-up " + c.warmup() + ", storage class " + c.storageClass() + ", "
                + c.size() + " " + c.accessMode() + ", wait " + c.waitMode() + ", client qps/burst " + (c.qps() < 0
                ? "unlimited" : num(c.qps()) + "/" + c.burst())));
        if (c.provisionerQps() != null) {
            rows.add(new Row("run", "stand-in provisioner", "qps/burst " + (c.provisionerQps() < 0 ? "unlimited"
                    : num(c.provisionerQps()) + "/" + c.provisionerBurst()) + ", PV reads by " + c.provisionerReads()));
        }
        RunReport.Window w = r.window();
        rows.add(new Row("window", "measured", w.start() + " → " + w.end() + " (" + num(w.seconds()) + " s, after "
                + num(w.warmupSeconds()) + " s warm-up" + (w.warmupCapped() ? ", capped" : "") + ")"));
        rows.add(new Row("window", "steady state", (w.verdict().equals("steady") ? "" : w.verdict().equals("not steady")
                ? "NO — " : "CANNOT TELL — ") + w.reason()));
        RunReport.Ops o = r.ops();
        rows.add(new Row("ops", "creates / deletes", o.creates() + " / " + o.deletes()));
        rows.add(new Row("ops", "ops/s (creates+deletes)", num(o.opsPerSecond())));
        rows.add(new Row("ops", "cycles/s", num(o.cyclesPerSecond())));
        rows.add(new Row("ops", "failures", o.failures() + (o.failures() > 0 ? " (" + map(o.failuresByCause())
                + ")" : "") + (o.failuresOutsideWindow() > 0 ? "; " + o.failuresOutsideWindow()
                + " outside the window" : "")));
        if (o.recovered() + o.deleteRetries() + o.reclaimed() > 0) {
            rows.add(new Row("ops", "recovered creates / delete retries / reclaimed claims", o.recovered() + " / "
                    + o.deleteRetries() + " / " + o.reclaimed()));
        }
        rows.add(new Row("ops", "in flight at start / end", o.inFlightAtStart() + " / " + o.inFlightAtEnd()));
        rows.add(new Row("ops", "completed in warm-up / after", o.completedInWarmup() + " / "
                + o.completedAfterWindow()));
        RunReport.Latencies l = r.latency();
        rows.add(new Row("latency", "create pipeline (sent → Bound)", lat(l.create().pipeline())));
        rows.add(new Row("latency", "delete pipeline (sent → PV gone)", lat(l.delete().pipeline())));
        rows.add(new Row("latency", "create queue (client limiter)", lat(l.create().queue())));
        rows.add(new Row("latency", "delete queue (client limiter)", lat(l.delete().queue())));
        rows.add(new Row("latency", "create total", lat(l.create().total())));
        rows.add(new Row("latency", "delete total", lat(l.delete().total())));
        if (l.stages() != null) {
            RunReport.Stages st = l.stages();
            rows.add(new Row("stages", "create (mean ms)", stages(st.create(), st.ops().get("create"))));
            rows.add(new Row("stages", "delete (mean ms)", stages(st.delete(), st.ops().get("delete"))));
            if (st.dominant() != null) {
                rows.add(new Row("stages", "dominant", map2(st.dominant())));
            }
            if (st.note() != null) {
                rows.add(new Row("stages", "note", st.note()));
            }
        }
        RunReport.Requests q = r.requests();
        rows.add(new Row("requests", "total", q.total() + (q.perOp() == null ? "" : " (" + num(q.perOp())
                + " per op)") + (q.totalIncludingCleanup() == null ? "" : "; " + q.totalIncludingCleanup()
                + " including warm-up, drain and cleanup")));
        rows.add(new Row("requests", "by verb", map(q.byVerb())));
        rows.add(new Row("requests", "by code", map(q.byCode())));
        RunReport.Throttling t = r.throttling();
        rows.add(new Row("throttling", "throttled requests", t.throttled() + " (>50ms " + t.over50ms() + ", >1s "
                + t.over1s() + ")"));
        rows.add(new Row("throttling", "wait", num(t.waitSeconds()) + " s total, p50 " + num(t.waitP50Ms())
                + " ms, p99 " + num(t.waitP99Ms()) + " ms, max " + num(t.waitMaxMs()) + " ms"));
        rows.set(rows.size() - 2, new Row("throttling", "tool (exact, its own limiter)", t.throttled()
                + " throttled requests (>50ms " + t.over50ms() + ", >1s " + t.over1s() + ")"));
        if (t.provisioner() != null) {
            RunReport.ProvisionerBucket b = t.provisioner();
            rows.add(new Row("throttling", b.method().startsWith("the stand-in") ? "csi-provisioner (stand-in, exact)"
                    : "csi-provisioner (estimated)", (b.verdict() == null ? "" : b.verdict().toUpperCase(Locale.ROOT)
                    + " — ") + b.atLimit() + " of " + b.requests() + " requests at the bucket's limit"
                    + (b.boundShare() == null ? "" : ", bucket empty " + Math.round(b.boundShare() * 100)
                    + " % of the window") + (b.qps() == null ? "" : " at " + num(b.qps()) + "/" + b.burst()
                    + (Boolean.TRUE.equals(b.assumed()) ? " (assumed: its defaults)" : ""))
                    + (b.logLines() == null ? "" : "; its log: " + b.logLines() + " throttling lines (a lower bound)")
                    + " — " + b.method()));
        }
        if (t.server() != null) {
            RunReport.ServerThrottling sv = t.server();
            if (!sv.readable()) {
                rows.add(new Row("throttling", "server side (APF)", "not read: " + sv.reason()));
            } else {
                StringBuilder pl = new StringBuilder();
                sv.priorityLevels().forEach((k, v) -> {
                    if (v.dispatched() > 0 || v.rejected() > 0) {
                        pl.append(pl.length() == 0 ? "" : "; ").append(k).append(": ").append(v.dispatched())
                                .append(" dispatched, ").append(v.rejected()).append(" rejected")
                                .append(v.waitMeanMs() == null ? "" : ", queue wait mean " + num(v.waitMeanMs()) + " ms");
                    }
                });
                rows.add(new Row("throttling", "server side (APF, " + sv.source() + ")", sv.rejected()
                        + " rejected (429) — " + pl));
            }
            if (sv.clients() != null) {
                sv.clients().forEach((who, f) -> rows.add(new Row("throttling", "  " + who + " → priority level",
                        map(f))));
            }
        }
        if (r.driver() != null) {
            RunReport.Driver dr = r.driver();
            rows.add(new Row("driver", "volumes created / deleted", dr.createVolume() + " / "
                    + dr.deleteVolume() + " (" + dr.source() + ")" + (dr.resets() == null ? ""
                    : " — RESET " + dr.resets() + "x, segments summed")));
            rows.add(new Row("driver", "CreateVolume / DeleteVolume calls OK", dr.createVolumeCalls() + " / "
                    + dr.deleteVolumeCalls()));
            if (dr.errors() != null) {
                rows.add(new Row("driver", "error answers (its own)", map(dr.errors())));
            }
            if (dr.injected() != null) {
                rows.add(new Row("driver", "error answers (injected)", map(dr.injected())));
            }
            RunReport.Agreement a = dr.agreement();
            if (a != null) {
                rows.add(new Row("driver", "agrees with the tool", a.status() + " — volumes created " + a.driverCreates()
                        + " vs creates " + a.toolCreates() + ", deleted " + a.driverDeletes() + " vs deletes "
                        + a.toolDeletes() + " (allowed −" + a.allowedBelow() + " … +" + a.allowedAbove() + ")"));
            }
        }
        if (r.components() != null) {
            r.components().forEach((name, req) -> rows.add(new Row("components", name + " requests", req.total()
                    + (req.perOp() == null ? "" : " (" + num(req.perOp()) + " per op)") + ": " + map(req.byVerbResource()))));
        }
        if (r.provisioner() != null) {
            RunReport.Provisioner p = r.provisioner();
            if (p.throttlingLines() != null) {
                rows.add(new Row("provisioner", "throttling log lines", p.throttlingLines() + " (" + p.logSource()
                        + ")"));
            }
            if (p.metrics() != null) {
                String reset = p.metricsResets() == null ? "" : " (RESET " + p.metricsResets() + "x, segments summed)";
                p.metrics().forEach((k, v) -> rows.add(new Row("provisioner", k, num(v) + reset)));
            }
            if (p.note() != null) {
                rows.add(new Row("provisioner", "note", p.note()));
            }
        }
        if (r.resources() != null) {
            r.resources().forEach((name, x) -> rows.add(new Row("resources", name, resources(x))));
        }
        if (r.cleanup() != null) {
            rows.add(new Row("cleanup", "claims deleted / left over", r.cleanup().deletedClaims() + " / "
                    + (r.cleanup().leftover().isEmpty() ? "none" : r.cleanup().leftover().size() + " object(s)")
                    + (r.cleanup().seconds() == null ? "" : " (" + num(r.cleanup().seconds()) + " s)")));
            for (RunReport.Leftover left : r.cleanup().leftover()) {
                rows.add(new Row("cleanup", "left over", left.toString()));
            }
            if (r.cleanup().command() != null) {
                rows.add(new Row("cleanup", "remove with", r.cleanup().command()));
            }
        }
        if (r.thresholds() != null) {
            for (RunReport.Threshold th : r.thresholds()) {
                rows.add(new Row("thresholds", th.name(), (th.passed() ? "PASS " : "FAIL ") + num(th.actual())
                        + " (limit " + num(th.limit()) + ")"));
            }
        }
        if (r.warnings() != null) {
            r.warnings().forEach(x -> rows.add(new Row("warnings", "!", x)));
        }
        return rows;
    }
}
