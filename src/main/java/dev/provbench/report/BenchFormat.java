package dev.provbench.report;

import java.util.Locale;

/**
 * Go benchmark lines, so that {@code benchstat} compares runs: configuration lines, one
 * {@code BenchmarkPVCChurn/...} line whose iteration count is the completed operations, and {@code Unit}
 * metadata saying which direction is better. Concatenate several runs' output into one file per setting.
 */
public final class BenchFormat implements ReportFormat {
    public String name() {
        return "bench";
    }

    private static String v(double d) {
        return String.format(Locale.ROOT, "%.6g", d);
    }

    public String render(RunReport r) {
        RunReport.Config c = r.config();
        StringBuilder b = new StringBuilder();
        b.append("goos: linux\n");
        b.append("pkg: provbench\n");
        b.append("mode: ").append(r.mode()).append('\n');
        b.append("storageclass: ").append(c.storageClass()).append('\n');
        String name = String.format(Locale.ROOT, "BenchmarkPVCChurn/mode=%s/qps=%s/burst=%d/wait=%s-%d", r.mode(),
                c.qps() < 0 ? "unlimited" : v(c.qps()), c.burst(), c.waitMode(), c.threads());
        long ops = r.ops().creates() + r.ops().deletes();
        b.append(name).append('\t').append(Math.max(1, ops));
        b.append('\t').append(v(r.ops().opsPerSecond())).append(" ops/s");
        b.append('\t').append(v(r.ops().cyclesPerSecond())).append(" cycles/s");
        if (r.latency().create().count() > 0) {
            b.append('\t').append(v(r.latency().create().p50())).append(" create-p50-ms");
            b.append('\t').append(v(r.latency().create().p99())).append(" create-p99-ms");
        }
        if (r.latency().delete().count() > 0) {
            b.append('\t').append(v(r.latency().delete().p50())).append(" delete-p50-ms");
            b.append('\t').append(v(r.latency().delete().p99())).append(" delete-p99-ms");
        }
        if (r.requests().perOp() != null) {
            b.append('\t').append(v(r.requests().perOp())).append(" req/op");
        }
        b.append('\t').append(r.throttling().throttled()).append(" throttled");
        b.append('\t').append(r.ops().failures()).append(" failures");
        if (r.provisioner() != null && r.provisioner().throttlingLines() != null) {
            b.append('\t').append(r.provisioner().throttlingLines()).append(" provisioner-throttling-lines");
        }
        b.append('\n');
        b.append("Unit ops/s better=higher\n");
        b.append("Unit cycles/s better=higher\n");
        b.append("Unit create-p50-ms better=lower\nUnit create-p99-ms better=lower\n");
        b.append("Unit delete-p50-ms better=lower\nUnit delete-p99-ms better=lower\n");
        b.append("Unit req/op better=lower\nUnit throttled better=lower\nUnit failures better=lower\n");
        b.append("Unit provisioner-throttling-lines better=lower\n");
        return b.toString();
    }
}
