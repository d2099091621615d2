package dev.provbench.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.provbench.run.RunLauncher;
import dev.provbench.run.RunRequest;
import dev.provbench.sweep.SweepExecution;
import dev.provbench.sweep.SweepFormats;
import dev.provbench.sweep.SweepLauncher;
import dev.provbench.sweep.SweepRequest;
import dev.provbench.sweep.SweepResult;
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
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.net.URI;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sweeps over HTTP ({@code provbench serve}): the options of {@code provbench sweep} by their JSON names, the
 * run options under {@code run} (as for {@code POST /api/runs}); the same states as a run; the result as it fills
 * in, and at the end in the formats of {@code provbench sweep}'s files.
 */
@Path("/api/sweeps")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "sweeps", description = "Runs over a matrix of settings, repeated, with a recommendation")
public class SweepsResource {

    /** One sweep as the API shows it; {@code result} fills in after every run. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SweepView(String id, String state, Instant created, Instant started, Instant finished,
                            Integer exitCode, String message, SweepRequest request, SweepExecution.Progress progress,
                            SweepResult result, Map<String, String> links) {
    }

    private static final ObjectReader STRICT = RunsResource.strict(SweepRequest.class);

    private final SweepLauncher launcher;

    public SweepsResource(SweepLauncher launcher) {
        this.launcher = launcher;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Start a sweep", description = "The options of `provbench sweep` by their JSON names "
            + "(`provisionerQps` for `--provisioner-qps`; axes as comma lists, e.g. `\"provisionerQps\": \"5,10,25\"`); "
            + "every other run option under `run`, as the body of POST /api/runs. `provisionerControl` may be "
            + "`stand-in` (implied by `\"run\": {\"local\": true}`) or `deployment:NAMESPACE/NAME[/CONTAINER]`; "
            + "`command:` is refused over the API.")
    @RequestBody(content = @Content(schema = @Schema(implementation = SweepRequest.class)))
    @APIResponse(responseCode = "202", description = "Started; follow it at the Location",
            content = @Content(schema = @Schema(implementation = SweepView.class)))
    @APIResponse(responseCode = "400", description = "A bad field, named in `field` (`run.` + the name for a run "
            + "option)")
    @APIResponse(responseCode = "409", description = "A run or sweep is active")
    @APIResponse(responseCode = "503", description = "This process does not start sweeps (not `provbench serve`)")
    public Response start(String body) {
        if (!launcher.enabled()) {
            return RunsResource.Error.response(503, "this process does not start sweeps; use `provbench serve`", null);
        }
        SweepRequest q;
        try {
            if (body != null && !body.isBlank()) {
                var tree = new ObjectMapper().readTree(body);
                var run = tree == null ? null : tree.get("run");
                Map<String, String> axes = Map.of("qps", "qps", "burst", "burst", "threads", "threads",
                        "localProvisionerQps", "provisionerQps", "localProvisionerBurst", "provisionerBurst");
                if (run != null && run.isObject()) {
                    for (var e : axes.entrySet()) {
                        if (run.has(e.getKey())) {
                            return RunsResource.Error.response(400, "run." + e.getKey() + " is an axis of the sweep: "
                                    + "set \"" + e.getValue() + "\" (a comma list) at the top level", "run." + e.getKey());
                        }
                    }
                }
            }
            q = body == null || body.isBlank() ? new SweepRequest() : STRICT.readValue(body);
        } catch (UnrecognizedPropertyException e) {
            String field = path(e);
            return RunsResource.Error.response(400, "unknown field '" + field + "'", field);
        } catch (JsonMappingException e) {
            String field = path(e);
            return RunsResource.Error.response(400, field.isEmpty() ? "the body is not a JSON object of sweep "
                    + "options: " + e.getOriginalMessage() : "'" + field + "' has the wrong type: "
                    + e.getOriginalMessage(), field.isEmpty() ? null : field);
        } catch (JsonProcessingException e) {
            return RunsResource.Error.response(400, "the body is not JSON: " + e.getOriginalMessage(), null);
        }
        if (q == null) {
            return RunsResource.Error.response(400, "the body is not a JSON object of sweep options", null);
        }
        if (q.run == null) {
            q.run = new RunRequest();
        }
        SweepExecution s;
        try {
            s = launcher.launch(q, System.getenv());
        } catch (RunRequest.Invalid x) {
            String field = List.of("qps", "burst", "threads", "provisionerQps", "provisionerBurst", "repeats", "seed",
                    "provisionerControl", "controlTimeout", "tolerance", "alpha").contains(x.field()) ? x.field()
                    : "run." + x.field();
            return RunsResource.Error.response(400, field + " " + x.getMessage(), field);
        } catch (RunLauncher.Busy x) {
            return Response.status(409).type(MediaType.APPLICATION_JSON)
                    .entity(new RunsResource.Error(x.getMessage(), null, x.activeId())).build();
        }
        return Response.accepted(view(s, false)).location(URI.create("/api/sweeps/" + s.id())).build();
    }

    private static String path(JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                b.append(b.length() == 0 ? "" : ".").append(r.getFieldName());
            }
        }
        return b.toString();
    }

    @GET
    @Operation(summary = "The sweeps of this process, newest first (the last 20)")
    public List<SweepView> list() {
        return launcher.all().stream().map(s -> view(s, false)).toList();
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "One sweep: its state, its request, progress (run, cell, ETA) and the result so far")
    @APIResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = SweepView.class)))
    @APIResponse(responseCode = "404", description = "No such sweep")
    public Response get(@PathParam("id") String id) {
        return launcher.get(id).map(s -> Response.ok(view(s, true)).build()).orElseGet(() -> notFound(id));
    }

    @GET
    @Path("/{id}/report")
    @Produces({MediaType.APPLICATION_JSON, "text/markdown", MediaType.TEXT_PLAIN, MediaType.TEXT_HTML})
    @Operation(summary = "The sweep's result once it has ended: json (sweep.json), bench (sweep.bench), markdown, "
            + "html or table")
    @APIResponse(responseCode = "200", description = "The result in the format asked for")
    @APIResponse(responseCode = "400", description = "Unknown format")
    @APIResponse(responseCode = "404", description = "No such sweep, or it ended without a result")
    @APIResponse(responseCode = "409", description = "The sweep has not ended yet")
    public Response report(@PathParam("id") String id, @QueryParam("format") @DefaultValue("json") String format) {
        if (!List.of("json", "bench", "markdown", "html", "table").contains(format)) {
            return RunsResource.Error.response(400, "format '" + format + "' is not one of json, bench, markdown, "
                    + "html, table", "format");
        }
        SweepExecution s = launcher.get(id).orElse(null);
        if (s == null) {
            return notFound(id);
        }
        if (!s.state().ended()) {
            return RunsResource.Error.response(409, "sweep " + id + " is " + s.state().json() + "; its result "
                    + "exists when it has ended (GET /api/sweeps/" + id + " shows it filling in)", null);
        }
        SweepResult r = s.result();
        if (r == null) {
            return RunsResource.Error.response(404, "sweep " + id + " ended without a result: " + s.message(), null);
        }
        return switch (format) {
            case "json" -> Response.ok(SweepFormats.json(r), MediaType.APPLICATION_JSON).build();
            case "bench" -> Response.ok(SweepResult.bench(s.plan(), s.doneRuns()), MediaType.TEXT_PLAIN
                    + ";charset=utf-8").build();
            case "markdown" -> Response.ok(SweepFormats.markdown(r, null), "text/markdown;charset=utf-8").build();
            case "html" -> Response.ok(SweepFormats.html(r, null), MediaType.TEXT_HTML + ";charset=utf-8").build();
            default -> Response.ok(SweepFormats.table(r), MediaType.TEXT_PLAIN + ";charset=utf-8").build();
        };
    }

    @DELETE
    @Path("/{id}")
    @Operation(summary = "Abort a sweep", description = "The run in progress is aborted (it cleans up and reports), "
            + "no further run starts, csi-provisioner's settings are restored; the state becomes `aborted`.")
    @APIResponse(responseCode = "202", description = "Aborting")
    @APIResponse(responseCode = "404", description = "No such sweep")
    @APIResponse(responseCode = "409", description = "The sweep has already ended")
    public Response abort(@PathParam("id") String id) {
        SweepExecution s = launcher.get(id).orElse(null);
        if (s == null) {
            return notFound(id);
        }
        if (!s.abort()) {
            return RunsResource.Error.response(409, "sweep " + id + " has already ended (" + s.state().json() + ")",
                    null);
        }
        return Response.accepted(view(s, false)).build();
    }

    private static Response notFound(String id) {
        return RunsResource.Error.response(404, "no sweep " + id, null);
    }

    static SweepView view(SweepExecution s, boolean detail) {
        Map<String, String> links = new LinkedHashMap<>();
        links.put("self", "/api/sweeps/" + s.id());
        if (s.state().ended() && s.result() != null) {
            for (String f : List.of("json", "markdown", "bench", "html")) {
                links.put(f, "/api/sweeps/" + s.id() + "/report?format=" + f);
            }
        }
        if (s.current() != null) {
            links.put("run", "/api/runs/" + s.current().id());
        }
        return new SweepView(s.id(), s.state().json(), s.created(), s.started(), s.finished(),
                s.exitCode() < 0 ? null : s.exitCode(), s.message(), detail ? s.plan().request() : null,
                s.progress(), detail ? s.result() : null, links);
    }
}
