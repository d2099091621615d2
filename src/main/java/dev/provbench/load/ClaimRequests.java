package dev.provbench.load;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.internal.OperationSupport;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The run's two writes, a claim's POST and its DELETE, sent as fabric8's {@code create()} and {@code delete()} send
 * them but without fabric8's operation layer, which cost the workers and the event loop ~7 ms of CPU a second at
 * 20 ops/s (issue 27, docs/benchmarks.md, eleventh sitting): fabric8 builds and serializes the claim, joins and
 * parses its URLs, and decodes each answer into a whole claim, of which the run reads one UID.
 *
 * <p>Here the claim is serialized once, by the run client's own serialization, and each POST puts its name into
 * that text; the DELETE's body is fabric8's (its {@code DeleteOptions} with {@code propagationPolicy: Background}).
 * Both go through the run client's HTTP client, so its interceptors see them as before: the rate limiter and the
 * counting ({@code kube.LimitingInterceptor}), the token's renewal ({@code kube.TokenRefresh}), the same
 * connections, and the client's request timeout. What the caller sees is also fabric8's: a 2xx answer passes; any
 * other throws fabric8's {@link KubernetesClientException} with the server's {@code Status} and code
 * ({@link OperationSupport#requestFailure}); a request without an answer throws one with code -1 whose cause is the
 * transport's failure, which {@code kube.Failures} reads. A DELETE answered 404 passes, as fabric8's {@code delete()}
 * returns an empty list for it: the claim is gone either way.
 */
final class ClaimRequests {
    /** A Kubernetes object name (RFC 1123 subdomain): nothing in it needs JSON's or a URL's escaping. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    /** Stands for the name in the serialized claim; a valid name itself, so the serialization keeps it as is. */
    private static final String NAME_MARK = "provbench-name-mark-0f3a9c";
    private static final JsonFactory JSON = new JsonFactory();

    private final HttpClient http;
    private final KubernetesSerialization serialization;
    private final String collection;
    private final String bodyBefore;
    private final String bodyAfter;
    private final String deleteBody;
    private final long timeoutMs;

    /**
     * @param claim the claim every POST sends, but for its name (which is replaced), in its namespace
     */
    ClaimRequests(KubernetesClient client, PersistentVolumeClaim claim) {
        String namespace = claim.getMetadata().getNamespace();
        if (namespace == null || !NAME.matcher(namespace).matches()) {
            throw new IllegalArgumentException("a claim's namespace must be a Kubernetes name");
        }
        this.http = client.getHttpClient();
        this.serialization = client.getKubernetesSerialization();
        this.collection = client.getMasterUrl().toString().replaceAll("/+$", "") + "/api/v1/namespaces/" + namespace
                + "/persistentvolumeclaims";
        PersistentVolumeClaim marked = new PersistentVolumeClaimBuilder(claim)
                .withMetadata(new ObjectMetaBuilder(claim.getMetadata()).withName(NAME_MARK).build()).build();
        String text = serialization.asJson(marked);
        int at = text.indexOf('"' + NAME_MARK + '"');
        if (at < 0 || text.indexOf(NAME_MARK, at + NAME_MARK.length() + 2) >= 0) {
            throw new IllegalStateException("the claim's serialization does not carry its name once");
        }
        this.bodyBefore = text.substring(0, at + 1);
        this.bodyAfter = text.substring(at + 1 + NAME_MARK.length());
        this.deleteBody = serialization.asJson(new DeleteOptionsBuilder().withPropagationPolicy("Background").build());
        Integer timeout = client.getConfiguration().getRequestTimeout();
        this.timeoutMs = timeout == null ? 0 : timeout;
    }

    /** The claim's text as the POST of {@code name} sends it. */
    String body(String name) {
        return bodyBefore + checked(name) + bodyAfter;
    }

    /**
     * POSTs the claim under {@code name}; returns the UID the server gave it (null if its answer had none).
     *
     * @throws KubernetesClientException as fabric8's {@code create()} throws it
     */
    String create(String name) {
        HttpRequest request = timed(http.newHttpRequestBuilder().uri(collection)
                .post(OperationSupport.JSON, body(name)));
        HttpResponse<byte[]> answer = send(request, "create", name);
        try (JsonParser p = JSON.createParser(answer.body())) {
            return p.nextToken() == JsonToken.START_OBJECT ? Views.claim(p, RunConfig.LABEL).uid() : null;
        } catch (IOException e) {
            throw new KubernetesClientException("the answer to creating the claim " + name + " is not a claim ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }

    /**
     * DELETEs the claim {@code name}, which passes if the server answered 2xx or 404.
     *
     * @throws KubernetesClientException as fabric8's {@code delete()} throws it
     */
    void delete(String name) {
        HttpRequest request = timed(http.newHttpRequestBuilder().uri(collection + "/" + checked(name))
                .delete(OperationSupport.JSON, deleteBody));
        send(request, "delete", name);
    }

    private HttpRequest timed(HttpRequest.Builder b) {
        return (timeoutMs > 0 ? b.timeout(timeoutMs, TimeUnit.MILLISECONDS) : b).build();
    }

    private static String checked(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("not a Kubernetes name: a claim's name is up to 253 characters of "
                    + "a-z, 0-9, '-' and '.'");
        }
        return name;
    }

    /** Sends and waits for the answer; throws what fabric8's operations throw for a failure. */
    private HttpResponse<byte[]> send(HttpRequest request, String operation, String name) {
        CompletableFuture<HttpResponse<byte[]>> sent = http.sendAsync(request, byte[].class);
        HttpResponse<byte[]> answer;
        try {
            answer = sent.get();
        } catch (InterruptedException e) {
            sent.cancel(true);
            Thread.currentThread().interrupt();
            throw new KubernetesClientException(operation + " of the claim " + name + " interrupted", e);
        } catch (ExecutionException e) {
            // as fabric8's OperationSupport.waitForResult and BaseOperation: its own exception with the code and
            // Status kept, anything else (an IOException, or Vert.x's HttpClosedException and the like) in one of
            // code -1 with the failure as its cause
            Throwable t = e.getCause() == null ? e : e.getCause();
            if (t instanceof KubernetesClientException k) {
                throw k.copyAsCause();
            }
            throw new KubernetesClientException(operation + " of the claim " + name + " failed: " + t.getMessage(), t);
        }
        int code = answer.code();
        if ((code >= 200 && code < 300) || (code == 404 && "delete".equals(operation))) {
            return answer;
        }
        throw OperationSupport.requestFailure(request, OperationSupport.createStatus(answer, serialization));
    }
}
