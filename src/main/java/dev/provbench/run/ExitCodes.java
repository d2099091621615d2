package dev.provbench.run;

/** Exit codes shared by every subcommand. */
public final class ExitCodes {
    /** Everything passed. */
    public static final int OK = 0;
    /** A threshold (SLO) failed. */
    public static final int THRESHOLD = 1;
    /** Bad usage or configuration (picocli's own code for parameter errors). */
    public static final int USAGE = 2;
    /** The job itself failed (cannot listen, cluster unreachable, ...). */
    public static final int FAILED = 3;

    private ExitCodes() {
    }
}
