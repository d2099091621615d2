package dev.provbench.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * fabric8's {@link TokenRefreshInterceptor}, refreshing at most once a minute as it means to. fabric8 7.5.2 reloads
 * the configuration (re-reads and parses the kubeconfig, or the service account's files) when its last refresh is a
 * minute old, but it records a refresh only when that produced a token. With a kubeconfig that authenticates by
 * client certificate — kind's, hack/local-cluster's — there is never a token, so after the client's first minute
 * <em>every</em> request re-read and parsed the kubeconfig on the sending thread: without it the workers' steady CPU
 * fell from 38–43 to 16–20 ms/s, and the peak RSS by 31 MiB (issue 27, docs/benchmarks.md).
 * <p>
 * This keeps fabric8's interceptor for everything it does — the Authorization header on every request, the
 * refresh after a 401, OIDC and token-file rotation — and, once a minute has passed since the current one was
 * made (so it has just refreshed, or tried to), replaces it with a new one stamped now.
 */
final class TokenRefresh implements Interceptor {
    static final Duration INTERVAL = Duration.ofMinutes(1);

    private final Config config;
    private final HttpClient.Factory factory;
    private volatile Made current;

    private record Made(TokenRefreshInterceptor interceptor, Instant stamp) {
    }

    TokenRefresh(Config config, HttpClient.Factory factory) {
        this(config, factory, Instant.now());
    }

    /** {@code firstStamp}: the first interceptor's last refresh (fabric8 stamps it now; a test, in the past). */
    TokenRefresh(Config config, HttpClient.Factory factory, Instant firstStamp) {
        this.config = config;
        this.factory = factory;
        this.current = new Made(new TokenRefreshInterceptor(config, factory, firstStamp), firstStamp);
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        Made m = current;
        m.interceptor.before(builder, request, tags);
        Instant now = Instant.now(); // fabric8's clock
        if (now.isAfter(m.stamp.plus(INTERVAL))) {
            renew(m, now);
        }
    }

    private synchronized void renew(Made m, Instant now) {
        if (current == m) {
            current = new Made(new TokenRefreshInterceptor(config, factory, now), now);
        }
    }

    @Override
    public CompletableFuture<Boolean> afterFailure(BasicBuilder builder, HttpResponse<?> response, RequestTags tags) {
        return current.interceptor.afterFailure(builder, response, tags);
    }

    @Override
    public CompletableFuture<Boolean> afterFailure(HttpRequest.Builder builder, HttpResponse<?> response,
            RequestTags tags) {
        return current.interceptor.afterFailure(builder, response, tags);
    }
}
