package dev.provbench.load;

/**
 * What the run's workers do: the shape of the load. The run ({@link LoadRun}) owns the phases — warm-up, window,
 * drain, cleanup —, the threads, abort and the stall rules; a workload owns what its workers do in them, through the
 * {@link WorkContext} it is handed (the client, the waits, the stamps, the op log, the claim writes, the run's
 * signals). A workload is one file plus one line in {@link Workloads}.
 *
 * <p>Two shapes exist: a closed loop whose window is timed by the run ({@link ChurnWorkload}: each worker creates,
 * waits, deletes, waits, again) and a wave whose window is the whole run and ends when the workload is done
 * ({@link BulkWorkload}: N creates through the client's limiter, all Bound, N deletes, all gone). The next workloads
 * (snapshots, expansions, attachments: other sidecars' objects) are either; their objects' writes and waits come
 * with them, beside {@link ClaimOps} and {@link Waits}.
 */
public interface Workload {
    /** The name {@code --mode} takes and the report's {@code config.mode}. */
    String name();

    /** Worker threads the run starts. */
    int workers();

    /**
     * Whether the run times the window (a warm-up, then {@code --duration} or {@code --cycles}); false: the window
     * opens as the first worker starts and closes when every worker has returned from {@link #work}.
     */
    boolean timedWindow();

    /** On the run's thread, before the workers start (a workload's own helper threads start here). */
    default void begin(WorkContext ctx) {
    }

    /**
     * Worker {@code index}'s whole life: returns when its part is done, or soon after {@link Signals#stopping}; an
     * interrupt (the run cutting waits after an abort) ends it.
     */
    void work(int index, WorkContext ctx) throws InterruptedException;

    /** On the run's thread, after the drain (stops what {@link #begin} started). */
    default void end() {
    }

    /** One phrase for the start line, e.g. {@code 64 workers}. */
    String describe();
}
