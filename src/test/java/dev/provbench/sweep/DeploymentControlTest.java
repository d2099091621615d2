package dev.provbench.sweep;

import dev.provbench.InMemoryApi;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** --provisioner-control deployment:…: the container's args set per cell and restored, against fabric8's in-memory API. */
class DeploymentControlTest {
    private static final List<String> ARGS = List.of("--csi-address=/csi/csi.sock", "--kube-api-qps=$(KUBE_API_QPS)",
            "--kube-api-burst=$(KUBE_API_BURST)", "-v=3");
    @RegisterExtension
    final InMemoryApi api = new InMemoryApi();
    private KubernetesClient client;

    @BeforeEach
    void start() {
        client = api.client();
    }

    private void deployment(int available) {
        Deployment d = new DeploymentBuilder().withNewMetadata().withName("provbench-driver").withNamespace("provbench")
                .withGeneration(1L).endMetadata().withNewSpec().withReplicas(1).withNewTemplate().withNewSpec()
                .addNewContainer().withName("driver").withImage("provbench").withArgs("driver").endContainer()
                .addNewContainer().withName("csi-provisioner").withImage("csi-provisioner").withArgs(new ArrayList<>(ARGS))
                .endContainer().endSpec().endTemplate().endSpec().withNewStatus().withObservedGeneration(1L)
                .withReplicas(1).withUpdatedReplicas(available).withAvailableReplicas(available).endStatus().build();
        client.apps().deployments().inNamespace("provbench").resource(d).create();
    }

    private List<String> args(String container) {
        return client.apps().deployments().inNamespace("provbench").withName("provbench-driver").get().getSpec()
                .getTemplate().getSpec().getContainers().stream().filter(c -> c.getName().equals(container))
                .findFirst().orElseThrow().getArgs();
    }

    /** Plays the deployment controller: marks each new generation as rolled out, after a moment. */
    private Thread controller() {
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(200);
                    var ref = client.apps().deployments().inNamespace("provbench").withName("provbench-driver");
                    Deployment d = ref.get();
                    if (d != null && d.getStatus().getObservedGeneration() < d.getMetadata().getGeneration()) {
                        long g = d.getMetadata().getGeneration();
                        ref.editStatus(x -> {
                            x.getStatus().setObservedGeneration(g);
                            return x;
                        });
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // a conflict with the patch: next round
                }
            }
        }, "test-deployment-controller");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void eachCellSetsTheArgsAndTheEndRestoresThem() throws Exception {
        deployment(1);
        Thread controller = controller();
        try (var control = new ProvisionerControl.DeploymentArgs("provbench/provbench-driver/csi-provisioner",
                Duration.ofSeconds(10), client.getConfiguration(), null)) {
            List<String> said = new ArrayList<>();
            control.apply(20, 40, said::add);
            assertEquals(List.of("--csi-address=/csi/csi.sock", "--kube-api-qps=20", "--kube-api-burst=40", "-v=3"),
                    args("csi-provisioner"));
            control.apply(-1, 0, said::add);
            assertEquals("--kube-api-qps=-1", args("csi-provisioner").get(1));
            assertEquals(List.of("driver"), args("driver"), "the other container is untouched");
            control.restore(said::add);
            assertEquals(ARGS, args("csi-provisioner"), "the args from before the sweep, exactly");
            assertTrue(said.stream().anyMatch(l -> l.contains("restoring")), said.toString());
        } finally {
            controller.interrupt();
        }
    }

    @Test
    void aRolloutThatDoesNotCompleteFailsWithinTheTimeout() {
        deployment(0);
        try (var control = new ProvisionerControl.DeploymentArgs("provbench/provbench-driver/csi-provisioner",
                Duration.ofSeconds(2), client.getConfiguration(), null)) {
            IOException e = assertThrows(IOException.class, () -> control.apply(10, 20, l -> { }));
            assertTrue(e.getMessage().contains("did not roll out within 2s"), e.getMessage());
        }
        var missing = new ProvisionerControl.DeploymentArgs("provbench/nope/csi-provisioner", Duration.ofSeconds(2),
                client.getConfiguration(), null);
        assertTrue(assertThrows(IOException.class, () -> missing.apply(10, 20, l -> { })).getMessage()
                .contains("does not exist"));
        missing.close();
    }
}
