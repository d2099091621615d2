package dev.provbench.load;

/** What a workload asks the run while it works: whether to start no more, and whether to cut waits short. */
public interface Signals {
    /** Start nothing new: the window ended, or the run was aborted or stopped. */
    boolean stopping();

    /** Stop at once: aborted, or stopped on its own ({@link Stall}); waits in flight end. */
    boolean cut();
}
