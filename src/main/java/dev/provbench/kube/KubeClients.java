package dev.provbench.kube;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Builds fabric8 clients whose every request passes a client-go-style rate limiter and is counted, over the
 * configured {@link Transport}.
 */
public final class KubeClients {
    private KubeClients() {
    }

    /**
     * The usual rules: {@code kubeconfig} if given, else $KUBECONFIG or ~/.kube/config, else in-cluster.
     */
    public static Config config(Path kubeconfig) throws IOException {
        if (kubeconfig == null) {
            return Config.autoConfigure(null);
        }
        String text;
        try {
            text = Files.readString(kubeconfig);
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot read the kubeconfig " + kubeconfig + " (" + e.getClass().getSimpleName()
                    + ")");
        }
        try {
            return Config.fromKubeconfig(null, text, kubeconfig.toString());
        } catch (RuntimeException e) {
            // the parser's message may quote the file: say which file and what kind of failure, never its content
            throw new IOException("the file " + kubeconfig + " is not a usable kubeconfig (" + e.getClass()
                    .getSimpleName() + ")");
        }
    }

    /**
     * fabric8's serialization, except that {@code metadata.managedFields} is skipped when decoding: the server
     * sends it with every object and watch event (most of a PV's ~2.2 KB), nothing here reads it, and building
     * its field sets was a third of the event loop's work (issue 27's profile, docs/benchmarks.md). The objects
     * this client sends never carry it, so nothing is lost on the way out: an update without managedFields keeps
     * the server's.
     */
    static final KubernetesSerialization SERIALIZATION = serialization();

    /**
     * A new serialization of that kind, for a client that registers kinds of its own ({@code load.Views}); it also
     * decodes watch events as they stream in ({@link WatchEvents}).
     */
    public static KubernetesSerialization serialization() {
        ObjectMapper mapper = new ObjectMapper().addMixIn(ObjectMeta.class, WithoutManagedFields.class);
        KubernetesSerialization s = new KubernetesSerialization(mapper, true);
        // after fabric8's own configuration of the mapper, which this deserializer's registry lookups rely on
        mapper.registerModule(new SimpleModule("provbench-watch-events").addDeserializer(WatchEvent.class,
                new WatchEvents(s)));
        return s;
    }

    @JsonIgnoreProperties("managedFields")
    private abstract static class WithoutManagedFields {
    }

    public static KubernetesClient client(Config base, RateLimiter limiter, RequestStats stats) {
        return client(base, limiter, stats, Transport.configured());
    }

    public static KubernetesClient client(Config base, RateLimiter limiter, RequestStats stats, Transport transport) {
        Config config = new io.fabric8.kubernetes.client.ConfigBuilder(base)
                // Every attempt goes through the limiter, and failures are ours to classify: no hidden retries.
                .withRequestRetryBackoffLimit(0)
                .build();
        LimitingInterceptor interceptor = new LimitingInterceptor(limiter, stats);
        HttpClient.Factory factory = transport.factory();
        return new KubernetesClientBuilder()
                .withConfig(config)
                .withHttpClientFactory(factory)
                .withKubernetesSerialization(SERIALIZATION)
                .withHttpClientBuilderConsumer(b -> b
                        .addOrReplaceInterceptor(LimitingInterceptor.NAME, interceptor)
                        .addOrReplaceInterceptor(TokenRefreshInterceptor.NAME, new TokenRefresh(config, factory)))
                .build();
    }
}
