package dev.provbench.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;

import java.net.ConnectException;
import java.util.Locale;

/**
 * What a failed API call was, in one word, the same everywhere (a failed op's cause, a request's outcome):
 * {@code http-429}, {@code http-504}, {@code http-5xx} (any other 5xx), {@code http-NNN} (a 4xx),
 * {@code connection-refused}, {@code client-timeout} (no answer within the client's request timeout), or
 * {@code connection-error} (reset, closed, TLS, DNS, …).
 */
public final class Failures {
    public static final String CONNECTION_REFUSED = "connection-refused";
    public static final String CLIENT_TIMEOUT = "client-timeout";
    public static final String CONNECTION_ERROR = "connection-error";

    private Failures() {
    }

    public static String cause(KubernetesClientException e) {
        int code = e.getCode();
        if (code > 0) {
            return code == 429 || code == 504 ? "http-" + code : code >= 500 ? "http-5xx" : "http-" + code;
        }
        return unanswered(e);
    }

    /** The kind of a failure that got no HTTP answer. */
    public static String unanswered(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ConnectException && t.getMessage() != null
                    && t.getMessage().toLowerCase(Locale.ROOT).contains("refused")) {
                return CONNECTION_REFUSED;
            }
            if (t instanceof java.util.concurrent.TimeoutException || t instanceof java.net.SocketTimeoutException
                    || t.getClass().getSimpleName().contains("Timeout")) {
                return CLIENT_TIMEOUT;
            }
        }
        return CONNECTION_ERROR;
    }

    /**
     * Whether the server may have acted on the request although the caller saw a failure: no answer came (but
     * a refused connection never carried the request), or a 5xx (a 504 is the apiserver giving up while the
     * write may still land). A 429 was never admitted.
     */
    public static boolean outcomeUnknown(KubernetesClientException e) {
        return e.getCode() <= 0 ? !CONNECTION_REFUSED.equals(unanswered(e)) : e.getCode() >= 500;
    }

    /** Whether {@code e} had no HTTP answer at all (the caller's attempt needs its outcome reported). */
    public static boolean noAnswer(KubernetesClientException e) {
        return e.getCode() <= 0;
    }
}
