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

    /** The CSI spec's general size limits ("Size Limits"): a string field 128 bytes, a map field 4 KiB. */
    static final int MAX_STRING_BYTES = 128;
    static final int MAX_MAP_BYTES = 4096;

    /** A string field within the spec's 128 bytes (UTF-8). */
    static void specSize(String value, String field) {
        require(value.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= MAX_STRING_BYTES,
                field + " is longer than the CSI limit of " + MAX_STRING_BYTES + " bytes");
    }

    /** A map field within the spec's 4 KiB (keys and values, UTF-8). */
    static void specSize(java.util.Map<String, String> map, String field) {
        long bytes = 0;
        for (var e : map.entrySet()) {
            bytes += e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                    + e.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        }
        require(bytes <= MAX_MAP_BYTES, field + " holds " + bytes + " bytes, more than the CSI limit of "
                + MAX_MAP_BYTES);
    }

    /** A path the driver may create or remove: absolute, no NUL, no ".." segment, at most 4096 bytes. */
    static void safePath(String value, String field) {
        notEmpty(value, field);
        require(value.length() <= 4096, field + " is longer than 4096 characters");
        require(value.startsWith("/"), field + " must be an absolute path");
        require(value.indexOf('\0') < 0, field + " must not contain NUL");
        require(java.util.Arrays.stream(value.split("/")).noneMatch(".."::equals),
                field + " must not contain '..'");
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
