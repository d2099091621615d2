package dev.provbench.csi;

import com.google.protobuf.BoolValue;
import csi.v1.Csi.GetPluginCapabilitiesRequest;
import csi.v1.Csi.GetPluginCapabilitiesResponse;
import csi.v1.Csi.GetPluginInfoRequest;
import csi.v1.Csi.GetPluginInfoResponse;
import csi.v1.Csi.PluginCapability;
import csi.v1.Csi.ProbeRequest;
import csi.v1.Csi.ProbeResponse;
import csi.v1.IdentityGrpc;
import io.grpc.stub.StreamObserver;

import java.util.regex.Pattern;

/** CSI Identity: who the plugin is and what it offers. */
public class IdentityService extends IdentityGrpc.IdentityImplBase {
    /** GetPluginInfo.name as the spec and csi-sanity require it. */
    static final Pattern NAME = Pattern.compile("^[a-zA-Z][A-Za-z0-9-._]{0,61}[a-zA-Z]$");

    private final FaultInjector injector;
    private final GetPluginInfoResponse info;
    private final GetPluginCapabilitiesResponse capabilities;

    public IdentityService(DriverConfig config, FaultInjector injector,
            String buildVersion) {
        this.injector = injector;
        if (!NAME.matcher(config.name()).matches()) {
            throw new IllegalArgumentException("provbench.driver.name '" + config.name()
                    + "' is not a valid CSI driver name (at most 63 characters, " + NAME.pattern() + ")");
        }
        this.info = GetPluginInfoResponse.newBuilder()
                .setName(config.name())
                .setVendorVersion(config.vendorVersion().orElse(buildVersion))
                .build();
        GetPluginCapabilitiesResponse.Builder caps = GetPluginCapabilitiesResponse.newBuilder()
                .addCapabilities(service(PluginCapability.Service.Type.CONTROLLER_SERVICE));
        if (config.topology().enabled()) {
            caps.addCapabilities(service(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS));
        }
        if (config.controller().expansion()) {
            caps.addCapabilities(PluginCapability.newBuilder().setVolumeExpansion(
                    PluginCapability.VolumeExpansion.newBuilder()
                            .setType(PluginCapability.VolumeExpansion.Type.ONLINE)));
        }
        this.capabilities = caps.build();
    }

    private static PluginCapability service(PluginCapability.Service.Type type) {
        return PluginCapability.newBuilder()
                .setService(PluginCapability.Service.newBuilder().setType(type)).build();
    }

    @Override
    public void getPluginInfo(GetPluginInfoRequest request, StreamObserver<GetPluginInfoResponse> observer) {
        injector.respond(csi.v1.IdentityGrpc.getGetPluginInfoMethod(), observer, () -> info);
    }

    @Override
    public void getPluginCapabilities(GetPluginCapabilitiesRequest request,
            StreamObserver<GetPluginCapabilitiesResponse> observer) {
        injector.respond(csi.v1.IdentityGrpc.getGetPluginCapabilitiesMethod(), observer, () -> capabilities);
    }

    @Override
    public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
        injector.respond(csi.v1.IdentityGrpc.getProbeMethod(), observer, () -> ProbeResponse.newBuilder().setReady(BoolValue.of(true)).build());
    }
}
