package dev.provbench.evidence;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The Prometheus process metrics the Go peers export and Micrometer does not: {@code process_cpu_seconds_total}
 * and {@code process_resident_memory_bytes}, so a run reads this process (a driver, say) from its
 * {@code /q/metrics} the same way as csi-provisioner's ({@link ProcessUsage#prometheus}).
 * {@code process_start_time_seconds} comes from Micrometer's uptime metrics.
 */
@ApplicationScoped
public class ProcessMetrics implements MeterBinder {
    private final ProcessUsage self = ProcessUsage.self();

    private double read(boolean cpu) {
        ProcessUsage.Sample s = self.read();
        return s == null ? Double.NaN : cpu ? s.cpuSeconds() : s.rssBytes();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("process.cpu", this, p -> p.read(true)).baseUnit("seconds")
                .description("Total user and system CPU time spent in seconds").register(registry);
        Gauge.builder("process.resident.memory", this, p -> p.read(false)).baseUnit("bytes")
                .description("Resident memory size in bytes").register(registry);
    }
}
