package dev.provbench.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decodes a watch event as it streams in. fabric8's own decoding of the event's object
 * ({@code KubernetesDeserializer}) first reads the whole object into a JSON tree, to find its {@code apiVersion}
 * and {@code kind}, and then converts the tree into the registered class: every field of every event is built
 * twice, once as a tree node. In issue 27's profile that tree (reading it, then converting it) was most of the
 * watch decoding, and the decoding was half of the event loop's steady work (docs/benchmarks.md).
 * <p>
 * kube-apiserver writes an object's {@code kind} and {@code apiVersion} first. When they lead, the class is
 * looked up in the same registry fabric8 uses ({@link KubernetesSerialization#getRegisteredKubernetesResource})
 * and the rest of the object is read straight into it: fields the class does not have are skipped by the
 * parser, not built. Otherwise — the type fields elsewhere, a kind nobody registered — the object is read as
 * fabric8 reads it, so the result is the same either way.
 */
final class WatchEvents extends JsonDeserializer<WatchEvent> {
    private final KubernetesSerialization serialization;
    /** Looked up once per class: Jackson's root lookup introspects the class's annotations on every call. */
    private final Map<Class<?>, JsonDeserializer<Object>> deserializers = new ConcurrentHashMap<>();

    WatchEvents(KubernetesSerialization serialization) {
        this.serialization = serialization;
    }

    @Override
    public WatchEvent deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            return (WatchEvent) ctxt.handleUnexpectedToken(WatchEvent.class, p);
        }
        WatchEvent event = new WatchEvent();
        for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
            JsonToken value = p.nextToken();
            switch (field) {
                case "type" -> event.setType(value == JsonToken.VALUE_NULL ? null : p.getValueAsString());
                case "object" -> event.setObject(value == JsonToken.VALUE_NULL ? null : object(p, ctxt));
                default -> p.skipChildren();
            }
        }
        return event;
    }

    /** The event's object; the parser is at its START_OBJECT and is left at its END_OBJECT. */
    private Object object(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            return ctxt.handleUnexpectedToken(KubernetesResource.class, p);
        }
        TokenBuffer read = ctxt.bufferForInputBuffering(p);
        read.writeStartObject();
        String apiVersion = null;
        String kind = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            boolean typeField = "apiVersion".equals(name) || "kind".equals(name);
            read.writeFieldName(name);
            if (p.nextToken() != JsonToken.VALUE_STRING || !typeField) {
                read.copyCurrentStructure(p);
                return asFabric8Does(p, ctxt, read, true);
            }
            read.writeString(p.getText());
            if ("apiVersion".equals(name)) {
                apiVersion = p.getText();
            } else {
                kind = p.getText();
            }
            if (apiVersion != null && kind != null) {
                Class<? extends KubernetesResource> type = serialization.getRegisteredKubernetesResource(apiVersion,
                        kind);
                if (type == null || type == GenericKubernetesResource.class) {
                    return asFabric8Does(p, ctxt, read, true);
                }
                JsonDeserializer<Object> d = deserializers.get(type);
                if (d == null) {
                    d = ctxt.findRootValueDeserializer(ctxt.constructType(type));
                    deserializers.putIfAbsent(type, d);
                }
                if (!(d instanceof BeanDeserializerBase)) { // only a bean's can resume inside its object
                    return asFabric8Does(p, ctxt, read, true);
                }
                p.nextToken(); // the next field's name, or the object's end: where a bean deserializer resumes
                Object o = d.deserialize(p, ctxt);
                if (o instanceof HasMetadata h && h.getApiVersion() == null) {
                    h.setApiVersion(apiVersion);
                }
                return o;
            }
        }
        return asFabric8Does(p, ctxt, read, false); // the object ended without both type fields
    }

    /**
     * The object from what was read so far plus the rest of it, through fabric8's own deserializer.
     * {@code more}: the parser is inside the object (else at its end).
     */
    private static Object asFabric8Does(JsonParser p, DeserializationContext ctxt, TokenBuffer read, boolean more)
            throws IOException {
        if (more) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                read.copyCurrentStructure(p);
            }
        }
        read.writeEndObject();
        try (JsonParser again = read.asParser(p)) {
            again.nextToken();
            return ctxt.readValue(again, KubernetesResource.class);
        }
    }
}
