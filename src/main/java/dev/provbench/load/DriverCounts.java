package dev.provbench.load;

/** Reads the mock driver's own count of successful CreateVolume and DeleteVolume calls. */
public interface DriverCounts {
    record Counts(long createVolume, long deleteVolume) {
    }

    Counts read() throws Exception;

    /** How the counts are read, for the report. */
    String source();
}
