package dev.provbench.csi.state;

/** Where a volume's content came from. */
public record Source(Kind kind, String id) {
    public enum Kind { SNAPSHOT, VOLUME }
}
