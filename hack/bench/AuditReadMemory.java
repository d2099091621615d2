import dev.provbench.evidence.AuditLog;

import java.io.BufferedWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;

/**
 * What reading a run's audit log costs in resident memory (hack/bench/audit-read-memory): {@code write FILE N}
 * writes N requests (EvidenceRead's events of three clients, ~740 B each); {@code read FILE} reads them once as a run's
 * report does (evidence.AuditLog.read) and prints one row's cells: RSS before, the process's peak RSS (VmHWM) after,
 * the process's CPU and the wall time of the read, the requests counted.
 */
public class AuditReadMemory {
    static long status(String key) throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith(key + ":")) {
                return Long.parseLong(l.replaceAll("\\D", "")) / 1024;
            }
        }
        throw new IllegalStateException("no " + key + " in /proc/self/status");
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        if (args[0].equals("write")) {
            try (BufferedWriter w = Files.newBufferedWriter(file)) {
                EvidenceRead.events(w, Instant.parse("2026-12-01T00:00:00Z"), Long.parseLong(args[2]), 1);
            }
            return;
        }
        var os = ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class);
        long before = status("VmRSS");
        long cpu = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        AuditLog.Read read = AuditLog.read(file, null, Instant.EPOCH, Instant.EPOCH, Instant.parse("2100-01-01T00:00:00Z"));
        double wall = (System.nanoTime() - t0) / 1e9;
        double cpuS = (os.getProcessCpuTime() - cpu) / 1e9;
        long requests = read.counts().values().stream().mapToLong(AuditLog.Counts::requests).sum();
        long peak = status("VmHWM"); // /proc's VmRSS and VmHWM in kB; ProcessUsage reads the one but not the other
        System.out.printf(Locale.ROOT, "%d | %d | %d | %.1f | %.1f | %d%n", before, peak, peak - before, cpuS, wall,
                requests);
    }
}
