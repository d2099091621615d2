package dev.provbench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.MockWebServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.net.InetAddress;
import java.util.HashMap;

/**
 * fabric8's in-memory Kubernetes API (its mock server in CRUD mode) on 127.0.0.1 and a free port, one per test:
 * {@code @RegisterExtension final InMemoryApi api = new InMemoryApi();}, then {@link #client()}. Started before each
 * test and stopped after it, whether it passed or not.
 */
public final class InMemoryApi implements BeforeEachCallback, AfterEachCallback {
    private KubernetesMockServer server;
    private KubernetesClient client;

    @Override
    public void beforeEach(ExtensionContext context) {
        server = new KubernetesMockServer(new io.fabric8.mockwebserver.Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            if (server != null) {
                server.destroy();
            }
        }
    }

    /** A client of this test's API. */
    public KubernetesClient client() {
        return client;
    }
}
