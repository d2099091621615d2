package dev.provbench.load;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;

import java.io.IOException;

/**
 * What the waits' watches decode: a claim and a volume reduced to the fields the waits read, read straight from
 * the bytes by Jackson's streaming parser ({@link ListWatch}). Everything else in an object — a PV's capacity,
 * access modes, CSI attributes, node affinity, every object's {@code managedFields} — is skipped by the parser,
 * never built. (Before issue 27's eighth sitting these views were fabric8 resources read by fabric8's informers:
 * docs/benchmarks.md has what each costs.)
 */
public final class Views {
    private Views() {
    }

    /** What every view has: the object's name and the resourceVersion it was read at. */
    public interface View {
        String name();

        String resourceVersion();
    }

    /**
     * A claim: its name, UID and resourceVersion; whether it is being deleted; the value of one label (the run's);
     * whether the PV controller marked it for a provisioner ({@link Waits#ANN_PROVISIONER}); {@code spec.volumeName}
     * and {@code status.phase}.
     */
    public record Claim(String name, String uid, String resourceVersion, boolean deleting, String runLabel,
                        boolean marked, String volumeName, String phase) implements View {

        /** The volume it is Bound to, or null. */
        public String boundVolume() {
            return !"Bound".equals(phase) || volumeName == null || volumeName.isEmpty() ? null : volumeName;
        }

        /** The view of a claim read whole (a GET's answer), or null. */
        static Claim of(PersistentVolumeClaim c, String labelKey) {
            if (c == null || c.getMetadata() == null) {
                return null;
            }
            var m = c.getMetadata();
            return new Claim(m.getName(), m.getUid(), m.getResourceVersion(), m.getDeletionTimestamp() != null,
                    m.getLabels() == null ? null : m.getLabels().get(labelKey),
                    m.getAnnotations() != null && m.getAnnotations().containsKey(Waits.ANN_PROVISIONER),
                    c.getSpec() == null ? null : c.getSpec().getVolumeName(),
                    c.getStatus() == null ? null : c.getStatus().getPhase());
        }
    }

    /**
     * A volume: name, resourceVersion, {@code spec.claimRef.{namespace,name}}, {@code spec.csi.volumeHandle}, phase,
     * {@code spec.storageClassName}, {@code spec.csi.driver} and {@code spec.persistentVolumeReclaimPolicy} (the last
     * three shared strings: a cluster has a handful of each).
     */
    public record Volume(String name, String resourceVersion, String claimNamespace, String claimName, String handle,
                         String phase, String storageClass, String driver, String reclaimPolicy) implements View {
    }

    /** What a view is read into: the metadata fields, and the claim's or the volume's own. */
    private static final class Read {
        String name;
        String uid;
        String resourceVersion;
        boolean deleting;
        String label;
        boolean marked;
        String volumeName;
        String phase;
        String claimNamespace;
        String claimName;
        String handle;
        String storageClass;
        String driver;
        String reclaimPolicy;

        /**
         * Reads the metadata object the parser is at. A claim's ({@code labelKey} not null) also gives that label's
         * value and the provisioner mark.
         */
        void metadata(JsonParser p, String labelKey) throws IOException {
            boolean claim = labelKey != null;
            fields(p, (f, v) -> {
                switch (f) {
                    case "name" -> name = text(p, v);
                    case "uid" -> uid = text(p, v);
                    case "resourceVersion" -> resourceVersion = text(p, v);
                    case "deletionTimestamp" -> {
                        deleting = v != JsonToken.VALUE_NULL;
                        p.skipChildren();
                    }
                    case "labels" -> {
                        if (claim) {
                            label = member(p, labelKey);
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "annotations" -> {
                        if (claim) {
                            marked = member(p, Waits.ANN_PROVISIONER) != null;
                        } else {
                            p.skipChildren();
                        }
                    }
                    default -> p.skipChildren();
                }
            });
        }
    }

    /** Reads one field's value; the parser is at the value and is left at its end. */
    interface Field {
        void read(String name, JsonToken value) throws IOException;
    }

    /**
     * Reads each field of the object the parser is at (its START_OBJECT) with {@code field}, leaving the parser at
     * its END_OBJECT; a value that is not an object is skipped.
     */
    static void fields(JsonParser p, Field field) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            field.read(name, p.nextToken());
        }
    }

    /**
     * Reads a claim from the object the parser is at (its START_OBJECT), leaving the parser at its END_OBJECT;
     * {@code labelKey}: the label whose value the view keeps.
     */
    public static Claim claim(JsonParser p, String labelKey) throws IOException {
        Read r = new Read();
        fields(p, (f, v) -> {
            switch (f) {
                case "metadata" -> r.metadata(p, labelKey);
                case "spec" -> r.volumeName = member(p, "volumeName");
                case "status" -> r.phase = member(p, "phase");
                default -> p.skipChildren();
            }
        });
        return new Claim(r.name, r.uid, r.resourceVersion, r.deleting, r.label, r.marked, r.volumeName, r.phase);
    }

    /** Reads a volume from the object the parser is at (its START_OBJECT), leaving the parser at its END_OBJECT. */
    public static Volume volume(JsonParser p) throws IOException {
        Read r = new Read();
        fields(p, (f, v) -> {
            switch (f) {
                case "metadata" -> r.metadata(p, null);
                case "spec" -> fields(p, (s, sv) -> {
                    switch (s) {
                        case "claimRef" -> fields(p, (c, cv) -> {
                            switch (c) {
                                case "namespace" -> r.claimNamespace = text(p, cv);
                                case "name" -> r.claimName = text(p, cv);
                                default -> p.skipChildren();
                            }
                        });
                        case "csi" -> fields(p, (c, cv) -> {
                            switch (c) {
                                case "volumeHandle" -> r.handle = text(p, cv);
                                case "driver" -> r.driver = shared(text(p, cv));
                                default -> p.skipChildren();
                            }
                        });
                        case "storageClassName" -> r.storageClass = shared(text(p, sv));
                        case "persistentVolumeReclaimPolicy" -> r.reclaimPolicy = shared(text(p, sv));
                        default -> p.skipChildren();
                    }
                });
                case "status" -> r.phase = member(p, "phase");
                default -> p.skipChildren();
            }
        });
        return new Volume(r.name, r.resourceVersion, r.claimNamespace, r.claimName, r.handle, r.phase,
                r.storageClass, r.driver, r.reclaimPolicy);
    }

    /** One copy of a value every view shares (a class, a driver, a policy): the JVM's string table. */
    private static String shared(String s) {
        return s == null ? null : s.intern();
    }

    /** The string at the parser's current value, or null if it is not a string. */
    static String text(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        p.skipChildren();
        return null;
    }

    /**
     * The string member {@code key} of the object the parser is at (null if absent, not a string, or the value
     * is not an object); leaves the parser at the value's end.
     */
    static String member(JsonParser p, String key) throws IOException {
        String[] found = new String[1];
        fields(p, (f, v) -> {
            if (key.equals(f)) {
                found[0] = text(p, v);
            } else {
                p.skipChildren();
            }
        });
        return found[0];
    }
}
