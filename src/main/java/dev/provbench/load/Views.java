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

    /** A volume: name, resourceVersion, {@code spec.claimRef.{namespace,name}}, {@code spec.csi.volumeHandle}, phase. */
    public record Volume(String name, String resourceVersion, String claimNamespace, String claimName, String handle,
                         String phase) implements View {

        /** The claim's name if it is in {@code namespace}, else null. */
        public String claimIn(String namespace) {
            return namespace.equals(claimNamespace) ? claimName : null;
        }
    }

    /** The metadata fields the views read. */
    private static final class Meta {
        String name;
        String uid;
        String resourceVersion;
        boolean deleting;
        String label;
        boolean marked;

        /**
         * Reads the metadata object the parser is at (its START_OBJECT); leaves the parser at its END_OBJECT. A
         * claim's ({@code labelKey} not null) also gives that label's value and the provisioner mark.
         */
        void read(JsonParser p, String labelKey) throws IOException {
            boolean claim = labelKey != null;
            if (p.currentToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                return;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken v = p.nextToken();
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
            }
        }
    }

    /**
     * Reads a claim from the object the parser is at (its START_OBJECT), leaving the parser at its END_OBJECT;
     * {@code labelKey}: the label whose value the view keeps.
     */
    public static Claim claim(JsonParser p, String labelKey) throws IOException {
        Meta m = new Meta();
        String volumeName = null;
        String phase = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = p.nextToken();
            switch (f) {
                case "metadata" -> m.read(p, labelKey);
                case "spec" -> volumeName = member(p, "volumeName");
                case "status" -> phase = member(p, "phase");
                default -> p.skipChildren();
            }
        }
        return new Claim(m.name, m.uid, m.resourceVersion, m.deleting, m.label, m.marked, volumeName, phase);
    }

    /** Reads a volume from the object the parser is at (its START_OBJECT), leaving the parser at its END_OBJECT. */
    public static Volume volume(JsonParser p) throws IOException {
        Meta m = new Meta();
        String claimNamespace = null;
        String claimName = null;
        String handle = null;
        String phase = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = p.nextToken();
            switch (f) {
                case "metadata" -> m.read(p, null);
                case "spec" -> {
                    if (v != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        break;
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String s = p.currentName();
                        JsonToken sv = p.nextToken();
                        if ("claimRef".equals(s) && sv == JsonToken.START_OBJECT) {
                            while (p.nextToken() == JsonToken.FIELD_NAME) {
                                String r = p.currentName();
                                JsonToken rv = p.nextToken();
                                switch (r) {
                                    case "namespace" -> claimNamespace = text(p, rv);
                                    case "name" -> claimName = text(p, rv);
                                    default -> p.skipChildren();
                                }
                            }
                        } else if ("csi".equals(s)) {
                            handle = member(p, "volumeHandle");
                        } else {
                            p.skipChildren();
                        }
                    }
                }
                case "status" -> phase = member(p, "phase");
                default -> p.skipChildren();
            }
        }
        return new Volume(m.name, m.resourceVersion, claimNamespace, claimName, handle, phase);
    }

    /** The string at the parser's current value, or null if it is not a string. */
    private static String text(JsonParser p, JsonToken v) throws IOException {
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
    private static String member(JsonParser p, String key) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return null;
        }
        String found = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            boolean wanted = key.equals(p.currentName());
            JsonToken v = p.nextToken();
            if (wanted) {
                found = text(p, v);
            } else {
                p.skipChildren();
            }
        }
        return found;
    }
}
