package dev.provbench.load;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** One short description of a failed API call: the HTTP code and reason, or the connection error. */
final class ApiErrors {
    private ApiErrors() {
    }

    static String describe(KubernetesClientException e) {
        if (e.getCode() > 0) {
            return "HTTP " + e.getCode() + (e.getStatus() != null && e.getStatus().getReason() != null
                    ? " " + e.getStatus().getReason() : "");
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }
}
