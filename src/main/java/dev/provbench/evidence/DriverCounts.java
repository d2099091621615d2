package dev.provbench.evidence;

/** Reads the mock driver's own count of successful CreateVolume and DeleteVolume calls. */
public interface DriverCounts {
    /**
     * @param volumesCreated   volumes the driver created (idempotent repeats not counted)
     * @param volumesDeleted   volumes the driver deleted (deletes of unknown IDs not counted)
     * @param createVolumeOk   CreateVolume calls answered OK
     * @param deleteVolumeOk   DeleteVolume calls answered OK
     */
    record Counts(long volumesCreated, long volumesDeleted, long createVolumeOk, long deleteVolumeOk) {
        public Counts minus(Counts o) {
            return new Counts(volumesCreated - o.volumesCreated, volumesDeleted - o.volumesDeleted,
                    createVolumeOk - o.createVolumeOk, deleteVolumeOk - o.deleteVolumeOk);
        }
    }

    Counts read() throws Exception;

    /** How the counts are read, for the report. */
    String source();
}
