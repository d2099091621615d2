package dev.provbench.api;

import dev.provbench.csi.CallMetrics;
import dev.provbench.csi.CsiServer;
import dev.provbench.csi.FaultInjector;
import dev.provbench.csi.FaultRule;
import dev.provbench.csi.state.Limits;
import dev.provbench.csi.state.VolumeStore;
import dev.provbench.util.Quantities;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Control of a running mock driver: latency/fault injection and limits can be changed while it serves,
 * and its own counts can be read (to compare with what a load run saw).
 */
@Path("/driver")
@Tag(name = "driver", description = "The mock CSI driver of this process: fault injection, limits, its own counts "
        + "and calls (404 in `serve --no-driver`)")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class DriverResource {

    /** One method's injection rule as JSON; {@code latency} uses the config syntax, e.g. "exp(20ms)". */
    public record Rule(String latency, Double errorRate, String errorCode) {
        static Rule of(FaultRule r) {
            return new Rule(r.latency() == null ? null : r.latency().spec(), r.errorRate(), r.errorCode().name());
        }
    }

    /** Limits as JSON; sizes accept bytes or quantities ("1Gi"); absent fields stay as they are. */
    public record LimitsBody(String defaultVolumeSize, String maxVolumeSize, String totalCapacity, Long maxVolumes,
                             Long maxSnapshots, Long maxVolumesPerNode, String maxHeldBytes) {
    }

    private final FaultInjector injector;
    private final VolumeStore store;
    private final CallMetrics metrics;
    private final CsiServer server;

    public DriverResource(FaultInjector injector, VolumeStore store, CallMetrics metrics, CsiServer server) {
        this.injector = injector;
        this.store = store;
        this.metrics = metrics;
        this.server = server;
    }

    @Operation(summary = "Injection rules, by CSI method")
    @GET
    @Path("/injection")
    public Map<String, Rule> rules() {
        present();
        Map<String, Rule> out = new LinkedHashMap<>();
        injector.rules().forEach((m, r) -> out.put(m, Rule.of(r)));
        return out;
    }

    @Operation(summary = "Set a method's injection rule")
    @APIResponse(responseCode = "200", description = "The rule now in force")
    @APIResponse(responseCode = "400", description = "A bad method or field")
    @PUT
    @Path("/injection/{method}")
    public Rule setRule(@PathParam("method") String method, Rule body) {
        present();
        if (body == null) {
            throw bad("a JSON body {\"latency\":…, \"errorRate\":…, \"errorCode\":…} is required");
        }
        FaultRule rule;
        try {
            rule = FaultRule.of(body.latency(), body.errorRate() == null ? 0 : body.errorRate(), body.errorCode());
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        try {
            injector.set(method, rule);
        } catch (IllegalArgumentException e) {
            throw bad("method: " + e.getMessage());
        }
        return Rule.of(rule);
    }

    @Operation(summary = "Remove a method's injection rule")
    @APIResponse(responseCode = "204", description = "Removed")
    @APIResponse(responseCode = "404", description = "No rule for that method")
    @APIResponse(responseCode = "400", description = "A bad method")
    @DELETE
    @Path("/injection/{method}")
    public Response removeRule(@PathParam("method") String method) {
        present();
        try {
            return injector.remove(method) ? Response.noContent().build()
                    : Response.status(404).entity(Map.of("error", "no rule for " + method)).build();
        } catch (IllegalArgumentException e) {
            throw bad("method: " + e.getMessage());
        }
    }

    @Operation(summary = "Remove every injection rule")
    @DELETE
    @Path("/injection")
    public Response clearRules() {
        present();
        injector.clear();
        return Response.noContent().build();
    }

    @Operation(summary = "The driver's limits")
    @GET
    @Path("/limits")
    public LimitsBody limits() {
        present();
        Limits l = store.limits();
        return new LimitsBody(Quantities.format(l.defaultVolumeSize()), Quantities.format(l.maxVolumeSize()),
                Quantities.format(l.totalCapacity()), l.maxVolumes(), l.maxSnapshots(), l.maxVolumesPerNode(),
                Quantities.format(l.maxHeldBytes()));
    }

    @Operation(summary = "Change the driver's limits (absent fields stay)")
    @APIResponse(responseCode = "200", description = "The limits now in force")
    @APIResponse(responseCode = "400", description = "A bad field")
    @PUT
    @Path("/limits")
    public LimitsBody setLimits(LimitsBody body) {
        present();
        if (body == null) {
            throw bad("a JSON body with the limits to change is required");
        }
        Limits cur = store.limits();
        try {
            store.setLimits(new Limits(
                    size("defaultVolumeSize", body.defaultVolumeSize(), cur.defaultVolumeSize()),
                    size("maxVolumeSize", body.maxVolumeSize(), cur.maxVolumeSize()),
                    size("totalCapacity", body.totalCapacity(), cur.totalCapacity()),
                    body.maxVolumes() == null ? cur.maxVolumes() : body.maxVolumes(),
                    body.maxSnapshots() == null ? cur.maxSnapshots() : body.maxSnapshots(),
                    body.maxVolumesPerNode() == null ? cur.maxVolumesPerNode() : body.maxVolumesPerNode(),
                    size("maxHeldBytes", body.maxHeldBytes(), cur.maxHeldBytes())));
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        return limits();
    }

    private static long size(String field, String value, long current) {
        if (value == null) {
            return current;
        }
        try {
            return Quantities.bytes(value);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw bad(field + ": " + e.getMessage());
        }
    }

    /** The driver's own view: what exists and every call it answered, by method and code. */
    @Operation(summary = "The driver's counts: volumes, snapshots, calls by method and code")
    @GET
    @Path("/stats")
    public Map<String, Object> stats() {
        present();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", server.driverName());
        out.put("serving", server.isServing());
        out.put("endpoint", server.endpoint() == null ? null : server.endpoint().toString());
        out.put("volumes", store.volumeCount());
        out.put("volumeBytes", store.usedBytes());
        out.put("heldBytes", store.heldBytes());
        out.put("snapshots", store.snapshotCount());
        out.put("volumesCreated", store.volumesCreated());
        out.put("volumesDeleted", store.volumesDeleted());
        out.put("calls", metrics.counts());
        out.put("injectedFaults", injector.injectedCounts());
        // the process's start (epoch seconds): a reader that sees it change knows the counters restarted
        out.put("startTime", java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime() / 1000.0);
        return out;
    }

    /**
     * When the driver received and answered each CreateVolume and DeleteVolume (the last
     * {@link dev.provbench.csi.CallLog#CAPACITY}), paged: {@code after} the last sequence seen, at most
     * {@code limit} (≤ {@value #MAX_CALLS}) calls; {@code missed}: calls overwritten before they were read.
     */
    @Operation(summary = "The driver's recent calls, paged")
    @GET
    @Path("/calls")
    public Map<String, Object> calls(@jakarta.ws.rs.QueryParam("after") @jakarta.ws.rs.DefaultValue("0") String after,
            @jakarta.ws.rs.QueryParam("limit") @jakarta.ws.rs.DefaultValue("1000") String limit) {
        present();
        long a;
        int l;
        try {
            a = Long.parseLong(after);
            l = Integer.parseInt(limit);
        } catch (NumberFormatException e) {
            throw bad("after and limit must be whole numbers");
        }
        if (a < 0 || l < 1 || l > MAX_CALLS) {
            throw bad("after must be ≥ 0 and limit within 1…" + MAX_CALLS);
        }
        dev.provbench.csi.CallLog.Page p = metrics.calls().after(a, l);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("calls", p.calls());
        out.put("next", p.next());
        out.put("missed", p.missed());
        out.put("clock", "epoch microseconds of the driver's wall clock");
        out.put("startTime", java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime() / 1000.0);
        return out;
    }

    static final int MAX_CALLS = 10_000;

    /** 404 in a process that serves no driver ({@code serve --no-driver}), naming where the driver is. */
    private void present() {
        String elsewhere = server.elsewhere();
        if (elsewhere != null) {
            throw new jakarta.ws.rs.NotFoundException(Response.status(Response.Status.NOT_FOUND)
                    .type(MediaType.APPLICATION_JSON)
                    .entity(Map.of("error", "this process serves no driver (serve --no-driver); the driver's API is "
                            + "at " + elsewhere))
                    .build());
        }
    }

    private static BadRequestException bad(String message) {
        return new BadRequestException(Response.status(400).type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", message)).build());
    }
}
