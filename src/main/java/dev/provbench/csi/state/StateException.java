package dev.provbench.csi.state;

/** A request the store refuses; {@link #reason()} names the CSI error it stands for. */
public final class StateException extends RuntimeException {
    public enum Reason { NOT_FOUND, ALREADY_EXISTS, RESOURCE_EXHAUSTED, OUT_OF_RANGE, FAILED_PRECONDITION, ABORTED }

    private final Reason reason;

    public StateException(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
