import dev.provbench.evidence.AuditLog;
import dev.provbench.evidence.LogMark;
import dev.provbench.evidence.ThrottlingLines;

import java.io.BufferedWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What reading a run's evidence costs as the logs grow before it (hack/bench/evidence-read): an audit log and a
 * csi-provisioner log with PREFIX MB written before the run (other runs' requests), then one run's worth, read the
 * old way (the whole file) and the new way (from the mark taken before the run), interleaved; CPU of this thread.
 * Args: DIR REPEATS RUN_EVENTS PREFIX_MB...
 */
public class EvidenceRead {
    static final String EVENT = "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\",\"auditID\":"
            + "\"%08x-6c1e-4c1b-9a4e-3f2d1c0b%04x\",\"stage\":\"ResponseComplete\",\"requestURI\":\"/api/v1/persistentvolumes"
            + "/pvc-%08x\",\"verb\":\"%s\",\"user\":{\"username\":\"%s\",\"groups\":[\"system:authenticated\"]},"
            + "\"sourceIPs\":[\"127.0.0.1\"],\"userAgent\":\"csi-provisioner/v5.2.0 (linux/amd64) kubernetes/$Format\","
            + "\"objectRef\":{\"resource\":\"persistentvolumes\",\"name\":\"pvc-%08x\",\"apiVersion\":\"v1\"},"
            + "\"responseStatus\":{\"metadata\":{},\"code\":%d},\"requestReceivedTimestamp\":\"%s\","
            + "\"stageTimestamp\":\"%s\",\"annotations\":{\"authorization.k8s.io/decision\":\"allow\","
            + "\"authorization.k8s.io/reason\":\"RBAC: allowed by ClusterRoleBinding\"}}\n";
    static final String[] USERS = {"csi-provisioner", "system:kube-controller-manager", "provbench-load"};
    static final String[] VERBS = {"create", "get", "patch", "delete", "update"};

    static void events(BufferedWriter w, Instant t0, long n, int seed) throws Exception {
        for (long i = 0; i < n; i++) {
            Instant at = t0.plusMillis(i * 7);
            w.write(String.format(Locale.ROOT, EVENT, seed, i & 0xffff, i, VERBS[(int) (i % 5)], USERS[(int) (i % 3)],
                    i, 200 + (int) (i % 2), at, at.plusMillis(3)));
        }
    }

    static void klog(BufferedWriter w, Instant t0, long n) throws Exception {
        for (long i = 0; i < n; i++) {
            var t = t0.plusMillis(i * 7).atZone(ZoneId.systemDefault());
            w.write(String.format(Locale.ROOT, "I%02d%02d %02d:%02d:%02d.%06d       1 %s\n", t.getMonthValue(),
                    t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), t.getNano() / 1000,
                    i % 10 == 0 ? "request.go:697] Waited for 180.1ms due to client-side throttling, not priority and "
                    + "fairness, request: POST:https://127.0.0.1:6443/api/v1/persistentvolumes"
                    : "controller.go:1366] provision \"default/pvc-" + i + "\" class \"provbench\": started"));
        }
    }

    static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int repeats = Integer.parseInt(args[1]);
        long runEvents = Long.parseLong(args[2]);
        var cpu = ManagementFactory.getThreadMXBean();
        System.out.println("| log written before the run | audit log MB | whole file: CPU ms (median) | from the mark: CPU ms "
                + "(median) | provisioner log MB | whole file: CPU ms | from the mark: CPU ms | requests counted (both ways) |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (int k = 3; k < args.length; k++) {
            long prefixMb = Long.parseLong(args[k]);
            Path audit = dir.resolve("audit-" + prefixMb + ".log");
            Path prov = dir.resolve("provisioner-" + prefixMb + ".log");
            Files.deleteIfExists(audit);
            Files.deleteIfExists(prov);
            Instant old = Instant.parse("2026-12-01T00:00:00Z");
            long perEvent = 900;
            try (BufferedWriter a = Files.newBufferedWriter(audit); BufferedWriter p = Files.newBufferedWriter(prov)) {
                events(a, old, prefixMb * 1_000_000 / perEvent, 1);
                klog(p, old, prefixMb * 1_000_000 / 140);
            }
            LogMark am = LogMark.of(audit);
            LogMark pm = LogMark.of(prov);
            Instant runStart = Instant.now().minusSeconds(3600);
            try (BufferedWriter a = Files.newBufferedWriter(audit, StandardOpenOption.APPEND);
                 BufferedWriter p = Files.newBufferedWriter(prov, StandardOpenOption.APPEND)) {
                events(a, runStart, runEvents, 2);
                klog(p, runStart, runEvents);
            }
            Instant end = runStart.plusMillis(runEvents * 7 + 1000);
            List<Double> aw = new ArrayList<>(), am2 = new ArrayList<>(), pw = new ArrayList<>(), pm2 = new ArrayList<>();
            long[] counted = new long[2];
            for (int r = 0; r < repeats + 1; r++) { // the first round warms the JIT and is not kept
                for (int way = 0; way < 2; way++) {
                    LogMark mark = way == 0 ? null : am;
                    long t = cpu.getCurrentThreadCpuTime();
                    AuditLog.Read read = AuditLog.read(audit, mark, runStart, runStart, end);
                    double ms = (cpu.getCurrentThreadCpuTime() - t) / 1e6;
                    counted[way] = read.counts().values().stream().mapToLong(AuditLog.Counts::requests).sum();
                    LogMark pmark = way == 0 ? null : pm;
                    long t2 = cpu.getCurrentThreadCpuTime();
                    try (var o = LogMark.open(prov, pmark).reader()) {
                        ThrottlingLines.count(o, runStart, end, ZoneId.systemDefault());
                    }
                    double ms2 = (cpu.getCurrentThreadCpuTime() - t2) / 1e6;
                    if (r > 0) {
                        (way == 0 ? aw : am2).add(ms);
                        (way == 0 ? pw : pm2).add(ms2);
                    }
                }
            }
            System.out.printf(Locale.ROOT, "| %d MB | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s |%n", prefixMb,
                    Files.size(audit) / 1e6, median(aw), median(am2), Files.size(prov) / 1e6, median(pw), median(pm2),
                    counted[0] == counted[1] ? counted[0] + "" : counted[0] + " vs " + counted[1] + " (DIFFER)");
            Files.delete(audit);
            Files.delete(prov);
        }
    }
}
