package dev.provbench.csi;

import csi.v1.Csi.VolumeCapability;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.util.List;

/** Argument checks shared by the CSI services; each failure is INVALID_ARGUMENT naming the field. */
final class Checks {
    private Checks() {
    }

    static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }

    static void require(boolean ok, String message) {
        if (!ok) {
            throw invalid(message);
        }
    }

    static void notEmpty(String value, String field) {
        require(value != null && !value.isEmpty(), field + " is required");
    }

    static void capability(VolumeCapability cap, String field) {
        require(cap.getAccessTypeCase() != VolumeCapability.AccessTypeCase.ACCESSTYPE_NOT_SET,
                field + ": access_type (mount or block) is required");
        require(cap.hasAccessMode() && cap.getAccessMode().getMode() != VolumeCapability.AccessMode.Mode.UNKNOWN,
                field + ": access_mode is required");
        require(cap.getAccessMode().getMode() != VolumeCapability.AccessMode.Mode.UNRECOGNIZED,
                field + ": access_mode is not a known mode");
    }

    static void capabilities(List<VolumeCapability> caps, String field) {
        require(!caps.isEmpty(), field + " is required");
        for (int i = 0; i < caps.size(); i++) {
            capability(caps.get(i), field + "[" + i + "]");
        }
    }

    static boolean singleNode(VolumeCapability cap) {
        return switch (cap.getAccessMode().getMode()) {
            case SINGLE_NODE_WRITER, SINGLE_NODE_READER_ONLY, SINGLE_NODE_SINGLE_WRITER,
                    SINGLE_NODE_MULTI_WRITER -> true;
            default -> false;
        };
    }

    static StatusRuntimeException notFound(String message) {
        return Status.NOT_FOUND.withDescription(message).asRuntimeException();
    }
}
