package dev.provbench.load;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.provbench.kube.KubeClients;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.impl.BaseClient;
import io.fabric8.kubernetes.client.impl.KubernetesClientImpl;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import io.vertx.core.Context;

import java.util.concurrent.Executor;

/**
 * What the waits' informers decode: a claim and a volume reduced to the fields the waits read, so that a watch
 * event's spec and status (a PV's capacity, access modes, CSI attributes, node affinity...) are skipped by the
 * parser instead of built into fabric8's model (with {@code kube.WatchEvents}, a bound PV's event 18.1 → 12.3 µs
 * and 27.5 → 13.8 KiB: {@code hack/bench/watch-decode}, docs/benchmarks.md).
 * <p>
 * fabric8 decodes a watch event's object by its {@code apiVersion#kind} through the client's serialization, and
 * converts it when the informer's type differs — which would build the full object first. So the views are read
 * through a serialization of their own, in which {@code v1#PersistentVolume} and {@code v1#PersistentVolumeClaim}
 * <em>are</em> the views, and a client over it ({@link #client}) that shares the run client's HTTP client: the same
 * connections, the same limiter and request counting (its interceptors), the same executor. Everything else —
 * lists, watches, resourceVersions, bookmarks, the relist on 410, the listers — is fabric8's informer as before.
 */
public final class Views {
    private Views() {
    }

    private static final KubernetesSerialization SERIALIZATION = newSerialization();

    /** A new serialization of the views' kind (the clients share one; a test reads events through its own). */
    static KubernetesSerialization newSerialization() {
        KubernetesSerialization s = KubeClients.serialization();
        s.registerKubernetesResource("v1", "PersistentVolume", Volume.class);
        s.registerKubernetesResource("v1", "PersistentVolumeClaim", Claim.class);
        return s;
    }

    /**
     * A client that reads the views, over {@code base}'s HTTP client and executor. Close its informers, never the
     * client itself: closing it would close {@code base}'s HTTP client and executor, which {@code base} owns.
     *
     * <p>Its executor runs a task handed over on a Vert.x event loop right there ({@link #inlineOnEventLoop}):
     * an informer's watch events are put into its cache and passed to its handlers on the event loop that decoded
     * them, instead of two hand-overs to {@code base}'s executor per event (fabric8's watch manager, then its
     * processor). That is right because none of it blocks: fabric8's informers continue lists, watches and relists
     * asynchronously, a request sent from an event loop takes its rate-limiter token without waiting
     * ({@code kube.LimitingInterceptor}), and {@link Waits}' handlers only record times and complete futures that
     * worker threads wait on. Tasks from any other thread (fabric8's delayed reconnects, for one, which may wait for
     * a token) still run on {@code base}'s executor.
     */
    public static KubernetesClient client(KubernetesClient base) {
        Executor executor = inlineOnEventLoop(base.adapt(BaseClient.class).getExecutor());
        return new KubernetesClientImpl(base.getHttpClient(), base.getConfiguration(),
                new KubernetesClientBuilder.ExecutorSupplier() {
                    public Executor get() {
                        return executor;
                    }

                    public void onClose(Executor e) {
                        // the executor is base's
                    }
                }, SERIALIZATION);
    }

    /** Runs a task on the calling thread if that is a Vert.x event loop, else hands it to {@code other}. */
    static Executor inlineOnEventLoop(Executor other) {
        return task -> {
            if (Context.isOnEventLoopThread()) {
                task.run();
            } else {
                other.execute(task);
            }
        };
    }

    /** The fields every view has; the rest of the object is skipped. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonDeserialize(using = JsonDeserializer.None.class)
    abstract static class View implements HasMetadata {
        // a list's items carry neither: the class's own, as fabric8's model sets them (constants: reading them
        // from the class's annotations for every object cost more than decoding the rest of it)
        private String apiVersion;
        private String kind;
        private ObjectMeta metadata;

        View(String apiVersion, String kind) {
            this.apiVersion = apiVersion;
            this.kind = kind;
        }

        @Override
        public String getApiVersion() {
            return apiVersion;
        }

        @Override
        public void setApiVersion(String apiVersion) {
            this.apiVersion = apiVersion;
        }

        @Override
        public String getKind() {
            return kind;
        }

        public void setKind(String kind) {
            this.kind = kind;
        }

        @Override
        public ObjectMeta getMetadata() {
            return metadata;
        }

        @Override
        public void setMetadata(ObjectMeta metadata) {
            this.metadata = metadata;
        }
    }

    /** A claim: metadata, {@code spec.volumeName}, {@code status.phase}. */
    @Group("")
    @Version("v1")
    @Kind("PersistentVolumeClaim")
    @Plural("persistentvolumeclaims")
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class Claim extends View implements Namespaced { // else fabric8 lists it cluster-wide
        public Spec spec;
        public Status status;

        public Claim() {
            super("v1", "PersistentVolumeClaim");
        }

        @JsonIgnoreProperties(ignoreUnknown = true)
        public static final class Spec {
            public String volumeName;
        }

        /** The volume it is Bound to, or null. */
        public String boundVolume() {
            return status == null || !"Bound".equals(status.phase) || spec == null || spec.volumeName == null
                    || spec.volumeName.isEmpty() ? null : spec.volumeName;
        }
    }

    /** A volume: metadata, {@code spec.claimRef.{namespace,name}}, {@code spec.csi.volumeHandle}, {@code status.phase}. */
    @Group("")
    @Version("v1")
    @Kind("PersistentVolume")
    @Plural("persistentvolumes")
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonDeserialize(using = JsonDeserializer.None.class)
    public static final class Volume extends View {
        public Spec spec;
        public Status status;

        public Volume() {
            super("v1", "PersistentVolume");
        }

        @JsonIgnoreProperties(ignoreUnknown = true)
        public static final class Spec {
            public ClaimRef claimRef;
            public Csi csi;
        }

        @JsonIgnoreProperties(ignoreUnknown = true)
        public static final class ClaimRef {
            public String namespace;
            public String name;
        }

        @JsonIgnoreProperties(ignoreUnknown = true)
        public static final class Csi {
            public String volumeHandle;
        }

        /** The claim's name if it is in {@code namespace}, else null. */
        public String claimIn(String namespace) {
            return spec == null || spec.claimRef == null || !namespace.equals(spec.claimRef.namespace) ? null
                    : spec.claimRef.name;
        }

        public String handle() {
            return spec == null || spec.csi == null ? null : spec.csi.volumeHandle;
        }

        public String phase() {
            return status == null ? null : status.phase;
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public static final class Status {
        public String phase;
    }
}
