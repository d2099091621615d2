package dev.provbench.load;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The namespaces a run's claims go to ({@code --namespaces K}, as kube-burner's namespaced iterations): with
 * {@code K = 1} (the default) the one {@code --namespace}; with {@code K > 1} the K namespaces
 * {@code <namespace>-0 … <namespace>-(K-1)}, claim number {@code n} in the {@code (n mod K)}-th, so that one claim's
 * namespace follows from its name ({@code pb-<run id>-<n>}, {@link RunCleanup#CLAIM_NAME}) everywhere it is needed.
 * A standing population ({@link Population}) stays in {@code --namespace} itself.
 *
 * <p>With {@code K > 1} the run makes the namespaces that do not exist yet, labelled with the run
 * ({@link RunConfig#LABEL}), and its cleanup deletes those (and only those) once the claims and their PVs are gone:
 * {@link #create} and {@link #remove}. Namespaces that existed are used as they are and kept.
 */
public final class RunNamespaces {
    /** The most namespaces one run spreads over (one claim watch each). */
    public static final int MAX = 100;

    private final String base;
    private final List<String> names;

    public RunNamespaces(String base, int count) {
        if (count < 1 || count > MAX) {
            throw new IllegalArgumentException("a run spreads over 1 to " + MAX + " namespaces");
        }
        this.base = base;
        List<String> n = new ArrayList<>(count);
        if (count == 1) {
            n.add(base);
        } else {
            for (int i = 0; i < count; i++) {
                n.add(base + "-" + i);
            }
        }
        this.names = List.copyOf(n);
    }

    /** The run's namespaces as its settings give them. */
    public static RunNamespaces of(RunConfig config) {
        return new RunNamespaces(config.namespace(), config.namespaces());
    }

    /** Whether {@code base} leaves room for K namespace names ({@code <base>-<K-1>} at most 63 characters). */
    public static boolean fits(String base, int count) {
        return count == 1 || base.length() + 1 + String.valueOf(count - 1).length() <= 63;
    }

    /** {@code --namespace}: where the population is, and the prefix of the K names. */
    public String base() {
        return base;
    }

    public int count() {
        return names.size();
    }

    public List<String> names() {
        return names;
    }

    /** The namespace of claim number {@code n}. */
    public String of(long n) {
        return names.get((int) Math.floorMod(n, (long) names.size()));
    }

    /** The namespace of the run's claim of this name ({@code pb-<run id>-<n>}); the first for any other name. */
    public String ofClaim(String claim) {
        return names.get(indexOfClaim(claim));
    }

    /** The index in {@link #names()} of the claim's namespace, as {@link #ofClaim}. */
    public int indexOfClaim(String claim) {
        if (names.size() == 1 || !RunCleanup.CLAIM_NAME.matcher(claim).matches()) {
            return 0;
        }
        try {
            return (int) Math.floorMod(Long.parseLong(claim.substring(claim.lastIndexOf('-') + 1)),
                    (long) names.size());
        } catch (NumberFormatException e) { // more digits than a long holds: not a name a run made
            return 0;
        }
    }

    public boolean contains(String namespace) {
        return namespace != null && (names.size() == 1 ? base.equals(namespace) : names.contains(namespace));
    }

    /** The flags that name these namespaces again, for a command the report prints. */
    public String flags() {
        return "--namespace " + base + (names.size() > 1 ? " --namespaces " + names.size() : "");
    }

    /** How the run's settings and lines name them: the one, or {@code <base>-0 … <base>-(K-1)}. */
    @Override
    public String toString() {
        return names.size() == 1 ? base : names.get(0) + " … " + names.get(names.size() - 1);
    }

    /**
     * With K > 1: creates those of the namespaces that do not exist, labelled with the run, adding their names to
     * {@code made} as it goes (so that a failure half-way leaves the list of what it made). A namespace that exists
     * but is being deleted is refused (its claims would be refused): thrown as {@link IllegalStateException} naming
     * it; a refused create throws the client's exception. Nothing to do for K = 1.
     */
    public void create(KubernetesClient client, String runId, List<String> made) {
        if (names.size() == 1) {
            return;
        }
        for (String name : names) {
            Namespace ns = client.namespaces().withName(name).get();
            if (ns != null) {
                if (ns.getMetadata().getDeletionTimestamp() != null) {
                    throw new IllegalStateException("namespace '" + name + "' is being deleted");
                }
                continue;
            }
            try {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
                        .addToLabels(RunConfig.LABEL, runId).endMetadata().build()).create();
                made.add(name);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) { // 409: made meanwhile by someone else, so not ours to delete
                    throw e;
                }
            }
        }
    }

    /** Deletes these namespaces (the run's own, empty: a run that could not start); true if every DELETE passed. */
    public static boolean delete(KubernetesClient client, List<String> made) {
        boolean all = true;
        for (String name : made) {
            try {
                client.namespaces().withName(name).delete();
            } catch (KubernetesClientException e) {
                all &= e.getCode() == 404;
            }
        }
        return all;
    }

    /**
     * The namespaces among these that a run made (labelled with {@code runId}, or with any run's ID when it is
     * null) and that still exist, with whether each is already being deleted.
     */
    List<Namespace> made(KubernetesClient client, String runId) {
        List<Namespace> out = new ArrayList<>();
        if (names.size() == 1) {
            return out;
        }
        Set<String> ours = Set.copyOf(names);
        var list = runId == null ? client.namespaces().withLabel(RunConfig.LABEL)
                : client.namespaces().withLabel(RunConfig.LABEL, runId);
        for (Namespace ns : list.list().getItems()) {
            if (ours.contains(ns.getMetadata().getName())) {
                out.add(ns);
            }
        }
        return out;
    }
}
