package dev.provbench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Kubeconfig files for tests. */
public final class TestKubeconfig {
    private TestKubeconfig() {
    }

    /** A kubeconfig in {@code dir} whose API server (127.0.0.1:1) nothing answers. */
    public static Path unreachable(Path dir) throws IOException {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: nowhere
                  cluster: {server: "http://127.0.0.1:1"}
                contexts:
                - name: nowhere
                  context: {cluster: nowhere, user: nobody}
                current-context: nowhere
                users:
                - name: nobody
                  user: {}
                """);
        return kubeconfig;
    }
}
