package dev.provbench.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code /q/openapi}: the REST API's OpenAPI document, made at build time from the {@code api} package's
 * annotations by smallrye-open-api-maven-plugin (pom.xml) and served as the file it wrote, as Quarkus'
 * smallrye-openapi extension serves its own: YAML by default; JSON for {@code ?format=json}, an
 * {@code Accept} naming {@code application/json}, or {@code /q/openapi.json} ({@code .yaml}, {@code .yml}
 * ask for YAML). Nothing is built or parsed at start: the extension built the document again at every start of
 * every role (~410 classes, 9 MiB of an idle driver; docs/benchmarks.md). Open like {@code /q/health}: it
 * describes the API, it holds no run's data.
 */
@Path("/q")
public class OpenApiResource {
    static final String DIR = "META-INF/provbench/";
    static final String JSON = "application/json;charset=UTF-8";
    static final String YAML = "application/yaml;charset=UTF-8";

    /** The two files, each read once, when first asked for. */
    private static final Map<String, byte[]> FILES = new ConcurrentHashMap<>();

    @GET
    @Path("/{file:openapi(\\.json|\\.yaml|\\.yml)?}")
    @org.eclipse.microprofile.openapi.annotations.Operation(hidden = true)
    public Response document(@PathParam("file") String file, @QueryParam("format") String format,
            @HeaderParam("Accept") String accept) {
        boolean asJson;
        if (file.endsWith(".json")) {
            asJson = true;
        } else if (file.endsWith(".yaml") || file.endsWith(".yml")) {
            asJson = false;
        } else if (format != null) {
            asJson = format.equalsIgnoreCase("json");
        } else {
            asJson = accept != null && accept.toLowerCase(Locale.ROOT).contains("application/json");
        }
        return Response.ok(FILES.computeIfAbsent(asJson ? "openapi.json" : "openapi.yaml", OpenApiResource::read),
                asJson ? JSON : YAML).build();
    }

    private static byte[] read(String name) {
        try (InputStream in = OpenApiResource.class.getClassLoader().getResourceAsStream(DIR + name)) {
            if (in == null) { // a build without the plugin's step: say so rather than serve nothing
                throw new NotFoundException("the OpenAPI document was not built into this jar (" + DIR + name + ")");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
