package dev.provbench.csi;

import csi.v1.ControllerGrpc;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGrpc;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;

import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The CSI methods this driver serves, by bare name (e.g. "CreateVolume"). */
public final class CsiMethods {
    /** Rule key that applies to every method without a rule of its own. */
    public static final String ALL = "*";

    private static final Set<String> NAMES = collect();

    /**
     * Bare names of the methods the code refers to by name: constants, so that a class using one (the load tool's
     * report) does not load this class, gRPC's and the CSI messages' ({@code CsiMethodsTest} checks them against
     * the generated descriptors).
     */
    public static final String PROBE = "Probe";
    public static final String CREATE_VOLUME = "CreateVolume";
    public static final String DELETE_VOLUME = "DeleteVolume";

    private CsiMethods() {
    }

    public static Set<String> names() {
        return NAMES;
    }

    public static boolean isKnown(String name) {
        return NAMES.contains(name);
    }

    public static String bareName(String fullMethodName) {
        String bare = MethodDescriptor.extractBareMethodName(fullMethodName);
        return bare == null ? fullMethodName : bare;
    }

    private static Set<String> collect() {
        TreeSet<String> names = new TreeSet<>();
        Stream.of(IdentityGrpc.getServiceDescriptor(), ControllerGrpc.getServiceDescriptor(),
                        NodeGrpc.getServiceDescriptor())
                .map(ServiceDescriptor::getMethods)
                .flatMap(java.util.Collection::stream)
                .forEach(m -> names.add(bareName(m.getFullMethodName())));
        return Set.copyOf(names);
    }
}
