package dev.provbench.local;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The single requests the stand-ins send that fabric8's DSL would send as two. */
final class Api {
    private Api() {
    }

    /**
     * One JSON merge PATCH, exactly one request (fabric8's patch() GETs the object first, which the real
     * controllers do not).
     */
    static void patch(KubernetesClient client, String path, String body) {
        String url = client.getMasterUrl().toString().replaceAll("/$", "") + path;
        try {
            var rsp = client.getHttpClient().sendAsync(client.getHttpClient().newHttpRequestBuilder().uri(url)
                    .method("PATCH", "application/merge-patch+json", body).build(), String.class)
                    .get(30, TimeUnit.SECONDS);
            if (!rsp.isSuccessful()) {
                throw new KubernetesClientException("PATCH " + path + ": HTTP " + rsp.code(), rsp.code(), null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KubernetesClientException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KubernetesClientException("PATCH " + path + ": " + e.getMessage(), e);
        }
    }

    static String claimPath(String ns, String name) {
        return "/api/v1/namespaces/" + ns + "/persistentvolumeclaims/" + name;
    }

    static String volumePath(String name) {
        return "/api/v1/persistentvolumes/" + name;
    }
}
