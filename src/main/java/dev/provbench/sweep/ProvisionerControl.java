package dev.provbench.sweep;

import dev.provbench.kube.KubeClients;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Puts csi-provisioner at a cell's {@code --kube-api-qps/--kube-api-burst} before its run, and puts back what
 * was there when the sweep ends, however it ends. The stand-in of {@code --local} needs nothing here: each local
 * run starts its own stand-in with the cell's bucket.
 */
public interface ProvisionerControl extends AutoCloseable {

    /** Returns once csi-provisioner serves with these settings; throws when it cannot be done. */
    void apply(double qps, int burst, Consumer<String> say) throws Exception;

    /** Puts back what was there before the sweep (if anything was changed); never throws. */
    void restore(Consumer<String> say);

    @Override
    default void close() {
    }

    /** Nothing to do: no provisioner axis, or the stand-in. */
    ProvisionerControl NONE = new ProvisionerControl() {
        public void apply(double qps, int burst, Consumer<String> say) {
        }

        public void restore(Consumer<String> say) {
        }
    };

    /**
     * @param logDir the sweep's directory, for a command's {@code control.log}; null when the sweep has none, and
     *               then a command's output goes to a temporary file of its own ({@link Command#log()}, which the
     *               sweep names), and nothing is created for the other kinds
     */
    static ProvisionerControl of(SweepPlan plan, Path logDir) throws IOException {
        return switch (plan.control().kind()) {
            case NONE, STAND_IN -> NONE;
            case COMMAND -> new Command(plan.control().target(), plan.controlTimeout(), logDir != null
                    ? logDir.resolve("control.log") : Files.createTempFile("provbench-control-", ".log"));
            case DEPLOYMENT -> new DeploymentArgs(plan.control().target(), plan.controlTimeout(),
                    KubeClients.config(plan.base().kubeconfig()), plan.base().provisionerMetrics());
        };
    }

    /** {@code {qps}} as csi-provisioner reads it: a negative QPS disables its limiter. */
    static String qpsArg(double qps) {
        return SweepPlan.fmt(qps);
    }

    /**
     * {@code command:TEMPLATE}: the template split at spaces (no shell), {@code {qps}} and {@code {burst}}
     * substituted in each word; it must exit 0 within the control timeout. Its output is appended to
     * {@code control.log} in the sweep's directory. Nothing to restore: a command has no "before".
     */
    final class Command implements ProvisionerControl {
        private final List<String> template;
        private final Duration timeout;
        private final Path log;

        Command(String template, Duration timeout, Path log) {
            this.template = List.of(template.trim().split("\\s+"));
            this.timeout = timeout;
            this.log = log;
        }

        /** Where the command's output is appended. */
        Path log() {
            return log;
        }

        List<String> argv(double qps, int burst) {
            return template.stream().map(w -> w.replace("{qps}", qpsArg(qps)).replace("{burst}",
                    Integer.toString(burst))).toList();
        }

        public void apply(double qps, int burst, Consumer<String> say) throws Exception {
            List<String> argv = argv(qps, burst);
            say.accept("provisioner-control: " + String.join(" ", argv));
            Process p = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroy();
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
                throw new IOException("the provisioner-control command did not exit within " + timeout.toSeconds()
                        + "s (its output: " + log + ")");
            }
            if (p.exitValue() != 0) {
                throw new IOException("the provisioner-control command exited " + p.exitValue() + " (its output: "
                        + log + ")");
            }
        }

        public void restore(Consumer<String> say) {
        }
    }

    /**
     * {@code deployment:NAMESPACE/NAME/CONTAINER}: the container's {@code --kube-api-qps}/{@code --kube-api-burst}
     * args are replaced (added if absent), the rollout is awaited (every replica updated and available, the old
     * pods gone), then csi-provisioner's metrics URL, when the run has one, must answer. The original args are
     * put back at the end. Needs get/patch/list/watch on that one Deployment (kubernetes/components/sweep).
     */
    final class DeploymentArgs implements ProvisionerControl {
        private final String namespace;
        private final String name;
        private final String container;
        private final Duration timeout;
        private final KubernetesClient client;
        private final URI metrics;
        private List<String> original;

        DeploymentArgs(String target, Duration timeout, io.fabric8.kubernetes.client.Config config, URI metrics) {
            String[] t = target.split("/");
            this.namespace = t[0];
            this.name = t[1];
            this.container = t[2];
            this.timeout = timeout;
            this.metrics = metrics;
            this.client = new KubernetesClientBuilder().withConfig(config).build();
        }

        /** {@code args} with the two flags set (both the {@code --flag=value} and the {@code --flag value} forms). */
        static List<String> withRate(List<String> args, String qps, String burst) {
            List<String> out = new ArrayList<>();
            boolean q = false;
            boolean b = false;
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                String flag = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                String norm = flag.startsWith("--") ? flag.substring(1) : flag;
                boolean separate = !a.contains("=");
                if (norm.equals("-kube-api-qps") || norm.equals("-kube-api-burst")) {
                    boolean isQps = norm.equals("-kube-api-qps");
                    out.add("--" + norm.substring(1) + "=" + (isQps ? qps : burst));
                    q |= isQps;
                    b |= !isQps;
                    if (separate && i + 1 < args.size()) {
                        i++; // its value
                    }
                    continue;
                }
                out.add(a);
            }
            if (!q) {
                out.add("--kube-api-qps=" + qps);
            }
            if (!b) {
                out.add("--kube-api-burst=" + burst);
            }
            return out;
        }

        private Container find(Deployment d) throws IOException {
            if (d == null) {
                throw new IOException("deployment " + namespace + "/" + name + " does not exist");
            }
            return d.getSpec().getTemplate().getSpec().getContainers().stream()
                    .filter(c -> c.getName().equals(container)).findFirst()
                    .orElseThrow(() -> new IOException("deployment " + namespace + "/" + name + " has no container '"
                            + container + "'"));
        }

        public synchronized void apply(double qps, int burst, Consumer<String> say) throws Exception {
            var ref = client.apps().deployments().inNamespace(namespace).withName(name);
            Deployment d = ref.get();
            Container c = find(d);
            List<String> args = c.getArgs() == null ? List.of() : List.copyOf(c.getArgs());
            if (original == null) {
                original = args;
            }
            List<String> wanted = withRate(args, qpsArg(qps), Integer.toString(burst));
            say.accept("provisioner-control: deployment " + namespace + "/" + name + " container " + container
                    + ": --kube-api-qps=" + qpsArg(qps) + " --kube-api-burst=" + burst);
            setArgs(wanted);
            awaitRollout();
            awaitMetrics();
        }

        private void setArgs(List<String> args) {
            client.apps().deployments().inNamespace(namespace).withName(name).edit(dep -> {
                dep.getSpec().getTemplate().getSpec().getContainers().stream()
                        .filter(x -> x.getName().equals(container)).forEach(x -> x.setArgs(new ArrayList<>(args)));
                return dep;
            });
        }

        static boolean rolledOut(Deployment d) {
            if (d == null || d.getStatus() == null || d.getSpec() == null) {
                return false;
            }
            int want = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
            var s = d.getStatus();
            return s.getObservedGeneration() != null && s.getObservedGeneration() >= d.getMetadata().getGeneration()
                    && Objects.equals(s.getUpdatedReplicas(), want) && Objects.equals(s.getReplicas(), want)
                    && Objects.equals(s.getAvailableReplicas(), want);
        }

        private void awaitRollout() throws IOException {
            try {
                client.apps().deployments().inNamespace(namespace).withName(name)
                        .waitUntilCondition(DeploymentArgs::rolledOut, timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (io.fabric8.kubernetes.client.KubernetesClientTimeoutException e) {
                throw new IOException("deployment " + namespace + "/" + name + " did not roll out within "
                        + timeout.toSeconds() + "s");
            }
        }

        private void awaitMetrics() throws IOException, InterruptedException {
            if (metrics == null) {
                return;
            }
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
            long end = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < end) {
                try {
                    HttpResponse<Void> r = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(3))
                            .GET().build(), HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        return;
                    }
                } catch (IOException e) {
                    // not serving yet
                }
                Thread.sleep(500);
            }
            throw new IOException("csi-provisioner's metrics (" + metrics + ") did not answer within "
                    + timeout.toSeconds() + "s of the rollout");
        }

        public synchronized void restore(Consumer<String> say) {
            if (original == null) {
                return;
            }
            try {
                say.accept("provisioner-control: restoring deployment " + namespace + "/" + name + " container "
                        + container + " args");
                setArgs(original);
                awaitRollout();
                original = null;
            } catch (Exception e) {
                say.accept("provisioner-control: could not restore deployment " + namespace + "/" + name + ": "
                        + e.getMessage() + "; its args were: " + String.join(" ", original));
            }
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
