package dev.provbench.load;

/** Something read at the start and at the end of the measured window (driver counts, metrics scrapes). */
public interface WindowProbe {
    void windowStart();

    void windowEnd();
}
