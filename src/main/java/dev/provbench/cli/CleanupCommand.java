package dev.provbench.cli;

import dev.provbench.kube.KubeClients;
import dev.provbench.kube.RateLimiter;
import dev.provbench.kube.RequestStats;
import dev.provbench.load.Population;
import dev.provbench.load.RunCleanup;
import dev.provbench.run.ExitCodes;
import io.fabric8.kubernetes.client.KubernetesClient;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code provbench cleanup}: removes what runs left behind (after SIGKILL, or a cleanup that ran out of time):
 * the claims carrying the run label — one run's or every run's in the namespace — and the PersistentVolumes
 * made for them, with the same bounded, honest procedure a run ends with ({@link RunCleanup}).
 */
@Command(name = "cleanup", mixinStandardHelpOptions = true,
        description = {"Delete the PVCs runs left (label provbench.dev/run-id) and wait until their PVs are gone.",
                "Prints what it removed and what remains. Exit codes: 0 nothing remains, 2 bad usage, 3 something "
                        + "remains (or the cluster could not be asked)."})
public class CleanupCommand implements Callable<Integer> {

    static final class Which {
        @Option(names = "--run-id", paramLabel = "ID", description = "The run whose objects to remove (the ID "
                + "its report and log show).")
        String runId;

        @Option(names = "--all", description = "Every claim carrying the run label in the namespace, of any run — "
                + "also of runs still going on elsewhere. A standing population is kept (--population removes it).")
        boolean all;

        @Option(names = "--population", description = "The namespace's standing population (claims labelled "
                + "provbench.dev/population, their PVs: prebound ones deleted by the tool, provisioned ones by "
                + "csi-provisioner) — what runs with --keep-population left.")
        boolean population;
    }

    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    @Option(names = "--namespace", description = "Namespace of the claims (default $PROVBENCH_NAMESPACE, else "
            + "default).")
    String namespace;

    @Option(names = "--namespaces", description = "As the run's --namespaces: its claims in <namespace>-0 … "
            + "<namespace>-(K-1), and the namespaces it made deleted once empty (default 1).")
    Integer namespaces;

    @Option(names = "--timeout", description = "How long to delete and wait (default ${DEFAULT-VALUE}, at most 24h).")
    String timeout = "3m";

    @Option(names = "--kubeconfig", description = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, "
            + "in-cluster).")
    String kubeconfig;

    @Option(names = "--qps", description = "Client-side rate limit, as client-go's (default 5; with --population 50).")
    Double qps;

    @Option(names = "--burst", description = "Client-side burst, as client-go's (default 10; with --population 100).")
    Integer burst;

    @Override
    public Integer call() {
        RunCleanup.Request request;
        double qps = this.qps != null ? this.qps : which.population ? 50 : 5;
        int burst = this.burst != null ? this.burst : which.population ? 100 : 10;
        try {
            request = RunCleanup.Request.check(which.runId, which.all || which.population, namespace, namespaces,
                    timeout, Duration.ofHours(24));
        } catch (RunCleanup.Request.Invalid e) {
            throw bad("--" + e.field().replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT),
                    e.getMessage());
        }
        if (!(qps == -1 || qps > 0 && qps <= 100_000) || burst < 0 || burst > 1_000_000) {
            throw bad("--qps", "qps must be -1 (no limit) or in (0, 100000], burst in [0, 1000000]");
        }
        Path kc = null;
        if (kubeconfig != null) {
            kc = Path.of(kubeconfig);
            if (!Files.isReadable(kc) || Files.isDirectory(kc)) {
                throw bad("--kubeconfig", kubeconfig + " is not a readable file");
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String ns = request.namespace();
        var spread = new dev.provbench.load.RunNamespaces(ns, request.namespaces());
        if (which.population && request.namespaces() > 1) {
            throw bad("--namespaces", "a population is in --namespace alone");
        }
        String what = which.population ? "the standing population" : which.all ? "every run's claims"
                : "run " + which.runId;
        err.printf("provbench cleanup: %s in namespace%s %s, at most %ds%n", what, spread.count() > 1 ? "s" : "",
                spread, request.timeout().toSeconds());
        err.flush();
        RunCleanup.Result r;
        io.fabric8.kubernetes.client.Config config;
        try {
            config = KubeClients.config(kc);
        } catch (IOException | RuntimeException e) {
            err.println("provbench cleanup: " + e.getMessage());
            return ExitCodes.FAILED;
        }
        try (KubernetesClient client = KubeClients.client(config, RateLimiter.of(qps, burst),
                new RequestStats("provbench-cleanup", null))) {
            if (which.population) {
                return population(client, request, out);
            }
            r = new RunCleanup(client, request).run();
            if (which.all) {
                long kept = Population.count(client, ns);
                if (kept > 0) {
                    err.printf("provbench cleanup: %d claim(s) of the namespace's standing population are kept "
                            + "('provbench cleanup --population --namespace %s' removes them)%n", kept, ns);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("provbench cleanup: interrupted");
            return ExitCodes.FAILED;
        }
        r.removedClaims().forEach(c -> out.println("removed PersistentVolumeClaim "
                + (spread.count() > 1 ? "" : ns + "/") + c));
        r.removedVolumes().forEach(v -> out.println("removed PersistentVolume " + v));
        r.leftover().forEach(l -> out.println("remains " + l));
        out.printf("cleanup: %d claim(s) deleted, %d claim(s) and %d volume(s) gone, %d object(s) remain%n",
                r.deletedClaims(), r.removedClaims().size(), r.removedVolumes().size(), r.leftover().size());
        out.flush();
        return r.clean() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private static int population(KubernetesClient client, RunCleanup.Request request, PrintWriter out)
            throws InterruptedException {
        Population.Removal r = Population.remove(client, request.namespace(), request.timeout());
        r.left().forEach(l -> out.println("remains " + l));
        out.printf("cleanup: population of namespace %s: %d claim(s) and %d prebound PV(s) deleted in %.1f s, %d "
                + "object(s) remain%n", request.namespace(), r.claimsDeleted(), r.volumesDeleted(), r.seconds(),
                r.left().size());
        out.flush();
        return r.clean() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private ParameterException bad(String flag, String why) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + flag + "': " + why);
    }
}
