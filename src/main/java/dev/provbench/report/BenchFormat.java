package dev.provbench.report;

import java.util.Locale;

/**
 * Go benchmark lines, so that {@code benchstat} compares runs: configuration lines, one
 * {@code BenchmarkPVCChurn/...} line whose iteration count is the completed operations, and {@code Unit}
 * metadata saying which direction is better. Concatenate several runs' output into one file per setting.
 */
public final class BenchFormat implements ReportFormat {

    private static String v(double d) {
        return String.format(Locale.ROOT, "%.6g", d);
    }

    /** Pipeline p50/p99 and total p99 of one kind of op, if any completed in the window. */
    private static void lat(StringBuilder b, String op, RunReport.OpLatency l) {
        if (l.total().count() > 0) {
            b.append('\t').append(v(l.pipeline().p50())).append(' ').append(op).append("-pipeline-p50-ms");
            b.append('\t').append(v(l.pipeline().p99())).append(' ').append(op).append("-pipeline-p99-ms");
            b.append('\t').append(v(l.total().p99())).append(' ').append(op).append("-total-p99-ms");
        }
    }

    /** The configuration lines every provbench bench output starts with. */
    public static String header(String mode, String storageClass) {
        return "goos: linux\npkg: provbench\nmode: " + mode + "\nstorageclass: " + storageClass + "\n";
    }

    /** The units' {@code better=} metadata lines. */
    public static String units() {
        StringBuilder b = new StringBuilder();
        b.append("Unit ops/s better=higher\n");
        b.append("Unit cycles/s better=higher\n");
        for (String op : new String[]{"create", "delete"}) {
            for (String m : new String[]{"pipeline-p50-ms", "pipeline-p99-ms", "total-p99-ms"}) {
                b.append("Unit ").append(op).append('-').append(m).append(" better=lower\n");
            }
        }
        b.append("Unit tool-cpu-ms/op better=lower\n");
        b.append("Unit req/op better=lower\nUnit throttled better=lower\nUnit failures better=lower\n");
        b.append("Unit provisioner-throttling-lines better=lower\n");
        return b.toString();
    }

    /** The run's benchmark name in {@code provbench run --format bench}. */
    public static String name(RunReport r) {
        RunReport.Config c = r.config();
        return String.format(Locale.ROOT, "BenchmarkPVCChurn/mode=%s/qps=%s/burst=%d/wait=%s-%d", r.mode(),
                c.qps() < 0 ? "unlimited" : v(c.qps()), c.burst(), c.waitMode(), c.threads());
    }

    public String render(RunReport r) {
        return header(r.mode(), r.config().storageClass()) + line(r, name(r)) + units();
    }

    /** One benchmark line for {@code r} under {@code name}: the iteration count is the completed ops. */
    public static String line(RunReport r, String name) {
        StringBuilder b = new StringBuilder();
        long ops = r.ops().creates() + r.ops().deletes();
        b.append(name).append('\t').append(Math.max(1, ops));
        b.append('\t').append(v(r.ops().opsPerSecond())).append(" ops/s");
        b.append('\t').append(v(r.ops().cyclesPerSecond())).append(" cycles/s");
        lat(b, "create", r.latency().create());
        lat(b, "delete", r.latency().delete());
        if (r.requests().perOp() != null) {
            b.append('\t').append(v(r.requests().perOp())).append(" req/op");
        }
        b.append('\t').append(r.throttling().throttled()).append(" throttled");
        b.append('\t').append(r.ops().failures()).append(" failures");
        RunReport.Resources tool = r.resources() == null ? null : r.resources().get("tool");
        if (tool != null && tool.cpuSecondsPerOp() != null) {
            b.append('\t').append(v(tool.cpuSecondsPerOp() * 1000)).append(" tool-cpu-ms/op");
        }
        if (r.provisioner() != null && r.provisioner().throttlingLines() != null) {
            b.append('\t').append(r.provisioner().throttlingLines()).append(" provisioner-throttling-lines");
        }
        return b.append('\n').toString();
    }
}
