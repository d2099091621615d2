package io.fabric8.kubernetes.client.vertx;

import io.fabric8.kubernetes.client.http.HttpClient;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * provbench's only class in fabric8's package: {@link VertxHttpClient}'s constructor is package-private, and
 * fabric8 7.5.2 builds the Vert.x client's options inside {@link VertxHttpClientBuilder#build()} without a hook
 * (its factory's {@code additionalConfig} is never called: fabric8 issue #7252). {@code dev.provbench.kube.Transport}
 * builds the options itself and wraps the Vert.x client here, so everything above the transport (interceptors,
 * informers, watches, derived clients) stays fabric8's own.
 */
public final class VertxClients {
    private VertxClients() {
    }

    /**
     * A fabric8 client over {@code client}, which it closes on close; with {@code closeVertx} it closes the
     * builder's Vert.x instance too (one the builder made for itself).
     */
    public static <F extends HttpClient.Factory> VertxHttpClient<F> wrap(VertxHttpClientBuilder<F> builder,
            io.vertx.core.http.HttpClient client, boolean closeVertx) {
        return new VertxHttpClient<>(builder, new AtomicBoolean(), client, closeVertx);
    }
}
