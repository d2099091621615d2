package dev.provbench.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Builds fabric8 clients whose every request passes a client-go-style rate limiter and is counted. */
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

    public static KubernetesClient client(Config base, RateLimiter limiter, RequestStats stats) {
        Config config = new io.fabric8.kubernetes.client.ConfigBuilder(base)
                // Every attempt goes through the limiter, and failures are ours to classify: no hidden retries.
                .withRequestRetryBackoffLimit(0)
                .build();
        LimitingInterceptor interceptor = new LimitingInterceptor(limiter, stats);
        return new KubernetesClientBuilder()
                .withConfig(config)
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor(LimitingInterceptor.NAME, interceptor))
                .build();
    }
}
