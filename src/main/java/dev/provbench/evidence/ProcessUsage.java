package dev.provbench.evidence;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and resident memory of one process, read on demand: this JVM, another process on this machine by
 * PID ({@code /proc/<pid>}), or a process that exports the standard Prometheus process metrics
 * ({@code process_cpu_seconds_total}, {@code process_resident_memory_bytes}, {@code process_start_time_seconds}).
 */
public interface ProcessUsage {

    /** @param start identifies the process instance: a change means it restarted */
    record Sample(double cpuSeconds, long rssBytes, double start) {
    }

    /** Null when it cannot be read now. */
    Sample read();

    /** Where the figures come from, for the report. */
    String source();

    /** Linux's USER_HZ: the unit of utime/stime in /proc/PID/stat on every architecture provbench runs on. */
    double CLOCK_TICKS = 100;

    static ProcessUsage self() {
        return new ProcessUsage() {
            private final com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            private final double start = ManagementFactory.getRuntimeMXBean().getStartTime();

            public Sample read() {
                long rss = rssBytes(Path.of("/proc/self/status"));
                return rss < 0 ? null : new Sample(os.getProcessCpuTime() / 1e9, rss, start);
            }

            public String source() {
                return "this JVM (OperatingSystemMXBean CPU time, /proc/self/status VmRSS)";
            }
        };
    }

    static ProcessUsage pid(long pid) {
        Path dir = Path.of("/proc", Long.toString(pid));
        return new ProcessUsage() {
            public Sample read() {
                try {
                    String stat = Files.readString(dir.resolve("stat"));
                    // fields after the command name, which is in parentheses and may contain spaces
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / CLOCK_TICKS; // utime, stime
                    long rss = rssBytes(dir.resolve("status"));
                    return rss < 0 ? null : new Sample(cpu, rss, Double.parseDouble(f[19])); // starttime
                } catch (IOException | RuntimeException e) {
                    return null;
                }
            }

            public String source() {
                return dir.toString();
            }
        };
    }

    static ProcessUsage prometheus(MetricsScrape scrape) {
        return new ProcessUsage() {
            public Sample read() {
                MetricsScrape.Process p = scrape.process();
                return p == null ? null : new Sample(p.cpuSeconds(), (long) p.rssBytes(), p.startTimeSeconds());
            }

            public String source() {
                return scrape.source();
            }
        };
    }

    /** VmRSS of a /proc status file in bytes; -1 if absent. */
    static long rssBytes(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
