package dev.provbench.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A kubeconfig without a token (client certificates) is reloaded once a minute, not on every request after the
 * first minute as fabric8 7.5.2's interceptor does; a due refresh still picks up a token. Seen from outside: a
 * token written into the kubeconfig shows in a request's Authorization header only after a refresh.
 */
class TokenRefreshTest {
    private static final String KUBECONFIG = """
            apiVersion: v1
            kind: Config
            clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
            contexts: [{name: x, context: {cluster: c, user: u}}]
            current-context: x
            users: [{name: u, user: %s}]
            """;
    private static final Instant DUE = Instant.now().minus(Duration.ofMinutes(2)); // last refresh > 1 min ago

    /** The Authorization header one request was given, or none. */
    private static List<String> authorization(Interceptor i) {
        List<String> set = new ArrayList<>();
        i.before(new BasicBuilder() {
            public BasicBuilder uri(URI uri) {
                return this;
            }

            public BasicBuilder header(String name, String value) {
                if ("Authorization".equals(name)) {
                    set.add(value);
                }
                return this;
            }

            public BasicBuilder setHeader(String name, String value) {
                set.removeIf(v -> "Authorization".equals(name));
                return header(name, value);
            }
        }, null, null);
        return set;
    }

    private static Config noToken(Path file) throws Exception {
        Files.writeString(file, KUBECONFIG.formatted("{}"));
        return KubeClients.config(file);
    }

    @Test
    void withoutATokenTheKubeconfigIsReloadedOnceAMinuteNotOnEveryRequest(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("kubeconfig");
        var factory = Transport.of("jdk", false).factory();

        TokenRefresh ours = new TokenRefresh(noToken(file), factory, DUE);
        assertEquals(List.of(), authorization(ours), "the due refresh found no token");
        Files.writeString(file, KUBECONFIG.formatted("{token: t1}"));
        assertEquals(List.of(), authorization(ours), "not reloaded again within the minute");

        // fabric8's own interceptor in the same state reloads on that request already (the cost this removes)
        TokenRefreshInterceptor theirs = new TokenRefreshInterceptor(noToken(file), factory, DUE);
        assertEquals(List.of(), authorization(theirs));
        Files.writeString(file, KUBECONFIG.formatted("{token: t1}"));
        assertEquals(List.of("Bearer t1"), authorization(theirs), "fabric8 7.5.2 reloads on every request");
    }

    @Test
    void aDueRefreshStillPicksUpAToken(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("kubeconfig");
        Config config = noToken(file);
        Files.writeString(file, KUBECONFIG.formatted("{token: t2}"));
        TokenRefresh ours = new TokenRefresh(config, Transport.of("jdk", false).factory(), DUE);
        assertEquals(List.of("Bearer t2"), authorization(ours), "the refresh that was due read the new token");
        assertEquals(List.of("Bearer t2"), authorization(ours), "and every request carries it");
    }
}
