package dev.provbench.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.Population;
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
    public record Body(String runId, Boolean all, Boolean population, String namespace, Integer namespaces,
                       String timeout) {
    }

    /** {@code population}: what the removal of the namespace's standing population deleted, and what remains. */
    public record PopulationAnswer(boolean clean, long deletedClaims, long deletedVolumes, List<String> left,
                                   double seconds) {
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
    @Operation(summary = "Remove what runs left", description = "`{\"runId\": ID}`, `{\"all\": true}` or "
            + "`{\"population\": true}`, with optional `namespace` (default the server's), `namespaces` (a run's "
            + "--namespaces) and `timeout` (default 3m, at most 1h). Deletes the claims carrying the run label (or "
            + "the namespace's standing population) and waits until their PVs are gone; answers when done.")
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
        boolean population = body != null && Boolean.TRUE.equals(body.population());
        try {
            if (population && (body.runId() != null || Boolean.TRUE.equals(body.all()))) {
                throw new RunCleanup.Request.Invalid("population", "give one of runId, all or population");
            }
            request = RunCleanup.Request.check(body == null ? null : body.runId(),
                    body != null && Boolean.TRUE.equals(body.all()) || population,
                    body == null ? null : body.namespace(), body == null ? null : body.namespaces(),
                    body == null ? null : body.timeout(), Duration.ofHours(1));
            if (population && request.namespaces() > 1) {
                throw new RunCleanup.Request.Invalid("namespaces", "a population is in namespace alone");
            }
        } catch (RunCleanup.Request.Invalid e) {
            return RunsResource.Error.response(400, e.field() + ": " + e.getMessage(), e.field());
        }
        if (population) {
            return removePopulation(request);
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

    /**
     * The namespace's standing population removed (as {@code provbench cleanup --population}, at its 50/100): 409
     * while a run is active in this process (it may be standing beside that population).
     */
    private Response removePopulation(RunCleanup.Request request) {
        Optional<RunExecution> active = registry.active();
        if (active.isPresent()) {
            return Response.status(409).type(MediaType.APPLICATION_JSON).entity(new RunsResource.Error(
                    "run " + active.get().id() + " is active: it may stand beside the population", null,
                    active.get().id())).build();
        }
        try (KubernetesClient client = KubeClients.client(KubeClients.config(null), RateLimiter.of(50, 100),
                new RequestStats("provbench-cleanup", null))) {
            Population.Removal r = Population.remove(client, request.namespace(), request.timeout());
            return Response.ok(new PopulationAnswer(r.clean(), r.claimsDeleted(), r.volumesDeleted(), r.left(),
                    Math.round(r.seconds() * 10) / 10.0)).build();
        } catch (IOException e) {
            return RunsResource.Error.response(500, e.getMessage(), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RunsResource.Error.response(500, "interrupted", null);
        }
    }
}
