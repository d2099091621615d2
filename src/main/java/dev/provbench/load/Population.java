package dev.provbench.load;

import dev.provbench.kube.Paged;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.impl.BaseClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A standing population ({@code --population N}): N bound claims and their PVs that exist before the window and
 * stay through it, so the run measures the pipeline beside them. The claims are called {@code pbpop-<i>} in the
 * run's namespace and labelled {@link #LABEL}{@code =<mode>}; they are not the run's (no run label), so the run's
 * claim watch, its cleanup and its figures never hold them — its PV watch does, as csi-provisioner's and
 * kube-controller-manager's caches do. A population found in the namespace is reused and grown or shrunk to N
 * (a sweep over {@code --population} keeps it between cells), and removed at the end unless
 * {@code --keep-population}; {@code provbench cleanup --population} removes it.
 *
 * <p>Two ways to make it, both real objects in the real cluster:
 * <ul>
 * <li>{@code provisioned}: plain claims of the StorageClass, made by csi-provisioner and the driver as a run's are;
 * removing them deletes their PVs and volumes through the pipeline (reclaim policy Delete);
 * <li>{@code prebound}: per claim, a PV written directly — a CSI PV of the StorageClass's driver with the
 * provisioner's {@code pv.kubernetes.io/provisioned-by} annotation and a {@code claimRef} to the claim — and the claim
 * with {@code spec.volumeName}; kube-controller-manager binds each pair. The PVs say {@code Retain}: no provisioner
 * ever deletes them, so a real driver is never sent DeleteVolume for a volume it never made; the tool deletes the PV
 * objects itself after their claims. This does not exercise csi-provisioner or the driver for the population (the
 * provisioner never provisioned them; its caches and kube-controller-manager's hold them all the same).
 * </ul>
 * Its writes go through the client given (the executor's unlimited one: not the run's, not counted), 16 at a time.
 */
public final class Population {
    public static final String LABEL = "provbench.dev/population";
    public static final String PREFIX = "pbpop-";
    private static final Pattern NAME = Pattern.compile(PREFIX + "([0-9]{1,9})");
    static final int WRITERS = 16;
    /** How long the wait for Bound may see no claim bind before the population is given up, named. */
    static final Duration STALL = Duration.ofMinutes(2);

    public enum Mode {
        PROVISIONED, PREBOUND;

        public String json() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Mode of(String s) {
            for (Mode m : values()) {
                if (m.json().equals(s)) {
                    return m;
                }
            }
            return null;
        }
    }

    /**
     * What the population phase did: the population's size and mode, how long it took until all were Bound,
     * what it found, made and removed.
     */
    public record Result(long count, String mode, double seconds, long existing, long created, long removed) {
    }

    /** The population could not be made: why, named (the run ends with exit code 3, after its cleanup). */
    public static final class Failed extends Exception {
        public Failed(String message) {
            super(message);
        }
    }

    private final KubernetesClient client;
    private final String namespace;
    private final String storageClass;
    private final String provisioner;
    private final String size;
    private final String accessMode;
    private final Mode mode;

    /** {@code provisioner}: the StorageClass's, which a prebound PV names as its driver and its maker. */
    public Population(KubernetesClient client, String namespace, String storageClass, String provisioner, String size,
            String accessMode, Mode mode) {
        this.client = client;
        this.namespace = namespace;
        this.storageClass = storageClass;
        this.provisioner = provisioner;
        this.size = size;
        this.accessMode = accessMode;
        this.mode = mode;
    }

    static String claimName(long i) {
        return PREFIX + i;
    }

    /** A prebound PV's name: the namespace is in it, as PVs are cluster-wide. */
    static String volumeName(String namespace, long i) {
        return PREFIX + namespace + "-" + i;
    }

    /** The index of a population claim's name, or -1. */
    static long index(String claim) {
        Matcher m = claim == null ? null : NAME.matcher(claim);
        return m != null && m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    /**
     * Makes the namespace's population exactly {@code n} claims of this mode, all Bound, and returns what that took;
     * {@code say} hears progress. A population of the other mode is refused (named, with the command that removes it).
     */
    public Result ensure(long n, Consumer<String> say, java.util.function.BooleanSupplier stop)
            throws Failed, InterruptedException {
        long t0 = System.nanoTime();
        Set<String> bound = ConcurrentHashMap.newKeySet();
        AtomicReference<String> otherMode = new AtomicReference<>();
        ListWatch<Views.Claim> watch = watch(n, bound, otherMode);
        try {
            List<Views.Claim> existing = watch.values();
            long have = existing.size();
            if (otherMode.get() != null) {
                throw new Failed("namespace " + namespace + " holds a population of mode " + otherMode.get()
                        + ", not " + mode.json() + ": 'provbench cleanup --population --namespace " + namespace
                        + "' removes it");
            }
            List<Long> extra = new ArrayList<>();
            boolean[] present = new boolean[(int) Math.min(n, Integer.MAX_VALUE - 8)];
            for (Views.Claim c : existing) {
                long i = index(c.name());
                if (i >= 0 && i < n) {
                    present[(int) i] = true;
                } else {
                    extra.add(i);
                }
            }
            List<Long> missing = new ArrayList<>();
            for (int i = 0; i < present.length; i++) {
                if (!present[i]) {
                    missing.add((long) i);
                }
            }
            if (have > 0) {
                say.accept(String.format(Locale.ROOT, "population: %d %s claims found in namespace %s; %s", have,
                        mode.json(), namespace, missing.isEmpty() && extra.isEmpty() ? "kept as they are"
                                : "making " + missing.size() + " more, removing " + extra.size()));
            } else if (n > 0) {
                say.accept(String.format(Locale.ROOT, "population: making %d %s claims in namespace %s", n,
                        mode.json(), namespace));
            }
            removeIndices(extra);
            AtomicLong failures = new AtomicLong();
            AtomicReference<String> firstFailure = new AtomicReference<>();
            parallel(missing, i -> {
                if (stop.getAsBoolean()) {
                    return;
                }
                try {
                    make(i);
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 409) {
                        failures.incrementAndGet();
                        firstFailure.compareAndSet(null, ApiErrors.describe(e));
                    }
                }
            });
            if (failures.get() > 0) {
                throw new Failed(failures.get() + " of " + missing.size() + " population writes failed; the first: "
                        + firstFailure.get());
            }
            if (stop.getAsBoolean()) {
                throw new Failed("aborted while making the population");
            }
            awaitBound(n, bound, say, stop);
            return new Result(n, mode.json(), Math.round((System.nanoTime() - t0) / 1e6) / 1e3, have,
                    missing.size(), extra.size());
        } finally {
            watch.close();
        }
    }

    /** Waits until {@code n} population claims are Bound; gives up, named, after {@link #STALL} without progress. */
    private void awaitBound(long n, Set<String> bound, Consumer<String> say, java.util.function.BooleanSupplier stop)
            throws Failed, InterruptedException {
        long last = -1;
        long lastChange = System.nanoTime();
        long lastSaid = System.nanoTime();
        while (bound.size() < n) {
            if (stop.getAsBoolean()) {
                throw new Failed("aborted while waiting for the population to be Bound");
            }
            long now = System.nanoTime();
            long b = bound.size();
            if (b != last) {
                last = b;
                lastChange = now;
            }
            if (now - lastChange > STALL.toNanos()) {
                throw new Failed(String.format(Locale.ROOT, "%d of %d population claims Bound, and none more in %s: "
                        + "the cluster does not bind them (%s)", b, n, "2 min", mode == Mode.PREBOUND
                        ? "kube-controller-manager's PV controller binds prebound pairs"
                        : "csi-provisioner and the driver make their volumes"));
            }
            if (now - lastSaid > 10_000_000_000L) {
                say.accept(String.format(Locale.ROOT, "population: %d of %d Bound", b, n));
                lastSaid = now;
            }
            Thread.sleep(200);
        }
    }

    /** The population's claims as a list-watch sees them; {@code bound} gets the Bound ones below {@code n}. */
    private ListWatch<Views.Claim> watch(long n, Set<String> bound, AtomicReference<String> otherMode)
            throws Failed, InterruptedException {
        String api = client.getMasterUrl().toString().replaceAll("/+$", "") + "/api/v1/";
        ListWatch<Views.Claim> w = new ListWatch<>(client.getHttpClient(), api + "namespaces/" + namespace
                + "/persistentvolumeclaims", LABEL, p -> Views.claim(p, LABEL), new ListWatch.Handler<>() {
                    public void changed(Views.Claim c) {
                        if (!mode.json().equals(c.runLabel())) {
                            otherMode.compareAndSet(null, c.runLabel());
                        }
                        long i = index(c.name());
                        if (c.boundVolume() != null && !c.deleting() && i >= 0 && i < n) {
                            bound.add(c.name());
                        } else {
                            bound.remove(c.name());
                        }
                    }

                    public void deleted(Views.Claim c) {
                        bound.remove(c.name());
                    }
                }, client.adapt(BaseClient.class).getExecutor());
        try {
            w.start().get(2, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            w.close();
            throw new Failed("cannot list the population's claims in namespace " + namespace + ": " + e.getCause());
        }
        return w;
    }

    private void make(long i) {
        String claim = claimName(i);
        PersistentVolumeClaimBuilder c = new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName(claim).withNamespace(namespace).addToLabels(LABEL, mode.json())
                .endMetadata()
                .withNewSpec().withStorageClassName(storageClass).withAccessModes(accessMode)
                .withNewResources().addToRequests("storage", new Quantity(size)).endResources().endSpec();
        if (mode == Mode.PREBOUND) {
            String pv = volumeName(namespace, i);
            PersistentVolume v = new PersistentVolumeBuilder()
                    .withNewMetadata().withName(pv).addToLabels(LABEL, namespace)
                    .addToAnnotations("pv.kubernetes.io/provisioned-by", provisioner).endMetadata()
                    .withNewSpec().addToCapacity("storage", new Quantity(size)).withAccessModes(accessMode)
                    .withPersistentVolumeReclaimPolicy("Retain").withStorageClassName(storageClass)
                    .withNewCsi().withDriver(provisioner).withVolumeHandle(pv).endCsi()
                    .withNewClaimRef().withNamespace(namespace).withName(claim).endClaimRef()
                    .endSpec().build();
            try {
                client.persistentVolumes().resource(v).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
            c.editSpec().withVolumeName(pv).endSpec();
        }
        PersistentVolumeClaim built = c.build();
        client.persistentVolumeClaims().inNamespace(namespace).resource(built).create();
    }

    private void removeIndices(List<Long> indices) throws InterruptedException {
        parallel(indices, this::removeOne);
    }

    private void removeOne(long i) {
        try {
            client.persistentVolumeClaims().inNamespace(namespace).withName(claimName(i)).delete();
            if (mode == Mode.PREBOUND) {
                client.persistentVolumes().withName(volumeName(namespace, i)).delete();
            }
        } catch (KubernetesClientException e) {
            // what is left is found by the next removal's LIST
        }
    }


    /** Runs {@code op} for each item on {@link #WRITERS} threads; an interrupt stops it. */
    private static <T> void parallel(List<T> items, Consumer<T> op) throws InterruptedException {
        if (items.isEmpty()) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS, r -> {
            Thread t = new Thread(r, "provbench-population");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> all = new ArrayList<>(items.size());
            for (T item : items) {
                all.add(pool.submit(() -> op.accept(item)));
            }
            for (Future<?> f : all) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * What the namespace's population removal left: claims, and PVs that name one of its claims (prebound ones by
     * their label, provisioned ones by their claimRef).
     */
    public record Removal(long claimsDeleted, long volumesDeleted, List<String> left, double seconds) {
        public boolean clean() {
            return left.isEmpty();
        }
    }

    /**
     * Removes the namespace's whole population (either mode): every claim labelled {@link #LABEL}, then the prebound
     * PVs (by their label; provisioned ones go with their claims, through csi-provisioner), and waits until no claim
     * and no PV of it is left or {@code timeout} has passed.
     */
    public static Removal remove(KubernetesClient client, String namespace, Duration timeout)
            throws InterruptedException {
        long t0 = System.nanoTime();
        long deadline = t0 + timeout.toNanos();
        AtomicLong claims = new AtomicLong();
        AtomicLong volumes = new AtomicLong();
        Set<String> sent = ConcurrentHashMap.newKeySet(); // "kind name" of the DELETEs the API server took
        List<String> left;
        while (true) {
            List<String> claimNames = claimNames(client, namespace);
            List<String> prebound = new ArrayList<>(); // the tool deletes these
            List<String> provisioned = new ArrayList<>(); // these go with their claims, through csi-provisioner
            Paged.each(client.persistentVolumes(), (PersistentVolume v) -> {
                var ref = v.getSpec() == null ? null : v.getSpec().getClaimRef();
                if (v.getMetadata().getLabels() != null && namespace.equals(v.getMetadata().getLabels().get(LABEL))) {
                    prebound.add(v.getMetadata().getName());
                } else if (ref != null && namespace.equals(ref.getNamespace()) && index(ref.getName()) >= 0) {
                    provisioned.add(v.getMetadata().getName());
                }
            });
            List<String> now = new ArrayList<>();
            claimNames.forEach(c -> now.add("PersistentVolumeClaim " + namespace + "/" + c));
            prebound.forEach(v -> now.add("PersistentVolume " + v));
            provisioned.forEach(v -> now.add("PersistentVolume " + v));
            left = now;
            if (left.isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            List<String> todo = new ArrayList<>();
            claimNames.forEach(c -> todo.add("PersistentVolumeClaim " + c));
            prebound.forEach(v -> todo.add("PersistentVolume " + v));
            todo.removeIf(k -> !sent.add(k));
            parallel(todo, k -> {
                String name = k.substring(k.indexOf(' ') + 1);
                try {
                    if (k.startsWith("PersistentVolumeClaim ")) {
                        client.persistentVolumeClaims().inNamespace(namespace).withName(name).delete();
                        claims.incrementAndGet();
                    } else {
                        client.persistentVolumes().withName(name).delete();
                        volumes.incrementAndGet();
                    }
                } catch (KubernetesClientException e) {
                    sent.remove(k); // sent again next round
                }
            });
            Thread.sleep(1000);
        }
        return new Removal(claims.get(), volumes.get(), left, Math.round((System.nanoTime() - t0) / 1e6) / 1e3);
    }

    /** How many population claims the namespace holds. */
    public static long count(KubernetesClient client, String namespace) {
        return claimNames(client, namespace).size();
    }

    /** The names of the namespace's population claims, listed in pages of 500. */
    private static List<String> claimNames(KubernetesClient client, String namespace) {
        List<String> out = new ArrayList<>();
        Paged.each(client.persistentVolumeClaims().inNamespace(namespace).withLabel(LABEL),
                (PersistentVolumeClaim c) -> out.add(c.getMetadata().getName()));
        return out;
    }
}
