package dev.provbench.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.RunCleanup;
import dev.provbench.run.RunExecution;
import dev.provbench.run.RunLauncher;
import dev.provbench.run.RunRegistry;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code POST /api/cleanup}: what {@code provbench cleanup} does, for the server's cluster and identity —
 * delete the claims runs left in a namespace (one run's, or every run's) and wait for their PVs.
 */
@Path("/api/cleanup")
@Tag(name = "runs")
@Produces(MediaType.APPLICATION_JSON)
public class CleanupResource {

    /** The options of {@code provbench cleanup} by JSON name. */
    public record Body(String runId, Boolean all, String namespace, String timeout) {
    }

    /** What was removed and what remains ({@code clean}: nothing does). */
    public record Answer(boolean clean, int deletedClaims, List<String> removedClaims, List<String> removedVolumes,
                         List<RunCleanup.Leftover> leftover) {
    }

    private static final ObjectReader STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).readerFor(Body.class);

    private final RunLauncher launcher;
    private final RunRegistry registry;

    public CleanupResource(RunLauncher launcher, RunRegistry registry) {
        this.launcher = launcher;
        this.registry = registry;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Remove what runs left", description = "`{\"runId\": ID}` or `{\"all\": true}`, with "
            + "optional `namespace` (default the server's) and `timeout` (default 3m, at most 1h). Deletes the "
            + "claims carrying the run label and waits until their PVs are gone; answers when done.")
    @APIResponse(responseCode = "200", description = "Done; `clean` says whether anything remains")
    @APIResponse(responseCode = "400", description = "A bad field, named in `field`")
    @APIResponse(responseCode = "409", description = "The active run's claims would be removed (`activeRun`)")
    @APIResponse(responseCode = "503", description = "This process does not serve the run API")
    public Response cleanup(String text) {
        if (!launcher.enabled()) {
            return RunsResource.Error.response(503, "this process does not serve the run API; use `provbench "
                    + "serve`", null);
        }
        Body body;
        try {
            body = text == null || text.isBlank() ? null : STRICT.readValue(text);
        } catch (UnrecognizedPropertyException e) {
            return RunsResource.Error.response(400, "unknown field '" + e.getPropertyName() + "'",
                    e.getPropertyName());
        } catch (JsonProcessingException e) {
            return RunsResource.Error.response(400, "the body is not a JSON object of cleanup options", null);
        }
        RunCleanup.Request request;
        try {
            request = RunCleanup.Request.check(body == null ? null : body.runId(),
                    body != null && Boolean.TRUE.equals(body.all()), body == null ? null : body.namespace(),
                    body == null ? null : body.timeout(), Duration.ofHours(1));
        } catch (RunCleanup.Request.Invalid e) {
            return RunsResource.Error.response(400, e.field() + ": " + e.getMessage(), e.field());
        }
        String runId = request.runId();
        boolean all = runId == null;
        Optional<RunExecution> active = registry.active();
        if (active.isPresent() && (all || active.get().id().equals(runId))) {
            return Response.status(409).type(MediaType.APPLICATION_JSON).entity(new RunsResource.Error(
                    "run " + active.get().id() + " is active: its own cleanup removes its claims", null,
                    active.get().id())).build();
        }
        RunCleanup.Result r;
        try (KubernetesClient client = KubeClients.client(KubeClients.config(null), RateLimiter.of(5, 10),
                new RequestStats("provbench-cleanup", null))) {
            r = new RunCleanup(client, request).run();
        } catch (IOException e) {
            return RunsResource.Error.response(500, e.getMessage(), null);
        }
        return Response.ok(new Answer(r.clean(), r.deletedClaims(), r.removedClaims(), r.removedVolumes(),
                r.leftover())).build();
    }
}
