package dev.provbench.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.provbench.report.Format;
import dev.provbench.run.RunExecution;
import dev.provbench.run.RunLauncher;
import dev.provbench.run.RunRegistry;
import dev.provbench.run.RunRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.net.URI;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Load runs over HTTP ({@code provbench serve}): start one with the same options as {@code provbench run},
 * follow it, fetch its report in any format, abort it.
 */
@Path("/api/runs")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "runs", description = "PVC create/delete load runs")
public class RunsResource {

    /** Errors name the field (a JSON name of the run request, or a query parameter) when there is one. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Error(String error, String field, String activeRun) {
        static Response response(int status, String message, String field) {
            return Response.status(status).type(MediaType.APPLICATION_JSON)
                    .entity(new Error(message, field, null)).build();
        }
    }

    /** One run as the API shows it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record RunView(String id, String state, Instant created, Instant started, Instant finished,
                          Integer exitCode, String message, RunRequest request, RunExecution.Progress progress,
                          Map<String, String> links) {
    }

    private static final ObjectReader STRICT = strict(RunRequest.class);

    /** A reader that refuses unknown fields, nulls for numbers, trailing data and 1.5 for an integer. */
    static ObjectReader strict(Class<?> type) {
        return new ObjectMapper()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .readerFor(type);
    }

    private final RunLauncher launcher;
    private final RunRegistry registry;

    public RunsResource(RunLauncher launcher, RunRegistry registry) {
        this.launcher = launcher;
        this.registry = registry;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Start a run", description = "The body takes the options of `provbench run` by their "
            + "JSON names (`opTimeout` for `--op-timeout`); absent ones take the same defaults. `\"local\": true` "
            + "runs against an in-memory API server in this process. `kubeconfig`, `auditLog`, `provisionerLog` and "
            + "`processes` are the server's settings and refused here.")
    @RequestBody(content = @Content(schema = @Schema(implementation = RunRequest.class)))
    @APIResponse(responseCode = "202", description = "Started; follow it at the Location",
            content = @Content(schema = @Schema(implementation = RunView.class)))
    @APIResponse(responseCode = "400", description = "A bad field, named in `field`",
            content = @Content(schema = @Schema(implementation = Error.class)))
    @APIResponse(responseCode = "401", description = "No or a wrong bearer token (every /api/ call needs it)")
    @APIResponse(responseCode = "409", description = "Another run is active (`activeRun`)",
            content = @Content(schema = @Schema(implementation = Error.class)))
    @APIResponse(responseCode = "503", description = "This process does not start runs (not `provbench serve`)")
    public Response start(String body) {
        if (!launcher.enabled()) {
            return Error.response(503, "this process does not start runs; use `provbench serve`", null);
        }
        RunRequest request;
        try {
            request = body == null || body.isBlank() ? new RunRequest() : STRICT.readValue(body);
        } catch (UnrecognizedPropertyException e) {
            return Error.response(400, "unknown field '" + e.getPropertyName() + "'", e.getPropertyName());
        } catch (JsonMappingException e) {
            String field = e.getPath().isEmpty() ? null : e.getPath().get(0).getFieldName();
            return Error.response(400, field == null ? "the body is not a JSON object of run options: "
                    + e.getOriginalMessage() : "'" + field + "' has the wrong type: " + e.getOriginalMessage(), field);
        } catch (JsonProcessingException e) {
            return Error.response(400, "the body is not JSON: " + e.getOriginalMessage(), null);
        }
        if (request == null) {
            return Error.response(400, "the body is not a JSON object of run options", null);
        }
        RunExecution e;
        try {
            e = launcher.launch(request.checkFromApi(System.getenv()).withEnvironmentDefaults(System.getenv()));
        } catch (RunRequest.Invalid x) {
            return Error.response(400, x.field() + " " + x.getMessage(), x.field());
        } catch (RunLauncher.Busy x) {
            return Response.status(409).type(MediaType.APPLICATION_JSON)
                    .entity(new Error(x.getMessage(), null, x.activeId())).build();
        }
        return Response.accepted(view(e, false)).location(URI.create("/api/runs/" + e.id())).build();
    }

    @GET
    @Operation(summary = "All runs of this process, newest first (the last 100)")
    public List<RunView> list() {
        return registry.all().stream().map(e -> view(e, false)).toList();
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "One run: its state (pending, running, succeeded, failed, aborted), its request, and "
            + "live progress with a sample per second")
    @APIResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = RunView.class)))
    @APIResponse(responseCode = "404", description = "No such run")
    public Response get(@PathParam("id") String id) {
        return registry.get(id).map(e -> Response.ok(view(e, true)).build())
                .orElseGet(() -> notFound(id));
    }

    @GET
    @Path("/{id}/report")
    @Produces({MediaType.APPLICATION_JSON, "text/markdown", MediaType.TEXT_PLAIN, MediaType.TEXT_HTML})
    @Operation(summary = "The run's report once it has ended")
    @APIResponse(responseCode = "200", description = "The report in the format asked for")
    @APIResponse(responseCode = "400", description = "Unknown format")
    @APIResponse(responseCode = "404", description = "No such run, or it ended without a report (see its message)")
    @APIResponse(responseCode = "409", description = "The run has not ended yet")
    public Response report(@PathParam("id") String id,
            @Parameter(description = "json, markdown, bench, html or table",
                    schema = @Schema(type = SchemaType.STRING, defaultValue = "json"))
            @QueryParam("format") @DefaultValue("json") String format) {
        Format f = Format.byName(format).orElse(null);
        if (f == null) {
            return Error.response(400, "format '" + format + "' is not one of " + Format.names(), "format");
        }
        RunExecution e = registry.get(id).orElse(null);
        if (e == null) {
            return notFound(id);
        }
        if (!e.state().ended()) {
            return Error.response(409, "run " + id + " is " + e.state().json() + "; its report exists when it "
                    + "has ended", null);
        }
        if (e.report() == null) {
            return Error.response(404, "run " + id + " ended without a report: " + e.message(), null);
        }
        String type = switch (format) {
            case "json" -> MediaType.APPLICATION_JSON;
            case "html" -> MediaType.TEXT_HTML + ";charset=utf-8";
            case "markdown" -> "text/markdown;charset=utf-8";
            default -> MediaType.TEXT_PLAIN + ";charset=utf-8";
        };
        return Response.ok(f.render(e.report()), type).build();
    }

    @DELETE
    @Path("/{id}")
    @Operation(summary = "Abort a run", description = "No new cycles start; running ones get the run's "
            + "`abortGrace` (default 20s) to finish, then their waits are cut, everything the run created is "
            + "deleted, and its report is written. The state becomes `aborted` when that is done.")
    @APIResponse(responseCode = "202", description = "Aborting",
            content = @Content(schema = @Schema(implementation = RunView.class)))
    @APIResponse(responseCode = "404", description = "No such run")
    @APIResponse(responseCode = "409", description = "The run has already ended")
    public Response abort(@PathParam("id") String id) {
        RunExecution e = registry.get(id).orElse(null);
        if (e == null) {
            return notFound(id);
        }
        if (!e.abort()) {
            return Error.response(409, "run " + id + " has already ended (" + e.state().json() + ")", null);
        }
        return Response.accepted(view(e, false)).build();
    }

    private static Response notFound(String id) {
        return Error.response(404, "no run " + id, null);
    }

    static RunView view(RunExecution e, boolean detail) {
        Map<String, String> links = new LinkedHashMap<>();
        links.put("self", "/api/runs/" + e.id());
        if (e.state().ended() && e.report() != null) {
            for (String f : List.of("json", "markdown", "bench", "html")) {
                links.put(f, "/api/runs/" + e.id() + "/report?format=" + f);
            }
        }
        return new RunView(e.id(), e.state().json(), e.created(), e.started(), e.finished(),
                e.exitCode() < 0 ? null : e.exitCode(), e.message(), detail ? e.request() : null,
                detail ? e.progress() : null, links);
    }
}
