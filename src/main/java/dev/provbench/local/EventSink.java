package dev.provbench.local;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A component's event recorder as client-go's broadcaster runs it: events are queued (at most
 * {@link #MAX_QUEUED}, then dropped) and one thread sends them through the component's own client — so under
 * load they get the share of its tokens one waiter among many gets.
 */
final class EventSink implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EventSink.class);
    /** client-go's record.maxQueuedEvents. */
    static final int MAX_QUEUED = 1000;
    private final KubernetesClient client;
    private final String component;
    private final ApiLatency latency;
    private final ExecutorService thread;

    EventSink(String name, KubernetesClient client, String component, ApiLatency latency) {
        this.client = client;
        this.latency = latency;
        this.component = component;
        this.thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(MAX_QUEUED),
                r -> {
                    Thread t = new Thread(r, name);
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.DiscardPolicy());
    }

    /** Queues an event about a claim; {@code created} gets the event's name once it is posted. */
    void record(PersistentVolumeClaim c, String reason, String message, Consumer<String> created) {
        send("event " + reason, () -> created.accept(post(c, reason, message)));
    }

    void record(PersistentVolumeClaim c, String reason, String message) {
        record(c, reason, message, name -> {
        });
    }

    /** Queues another request the recorder sends (the correlator's PATCH of a repeated event's count). */
    void send(String what, Runnable request) {
        thread.execute(() -> {
            try {
                request.run();
            } catch (RuntimeException e) {
                LOG.debugf("%s: %s", what, e.getMessage());
            } finally {
                try {
                    latency.answered();
                } catch (RuntimeException e) {
                    // interrupted while waiting out the round trip: the sink is closing
                }
            }
        });
    }

    private String post(PersistentVolumeClaim c, String reason, String message) {
        String ns = c.getMetadata().getNamespace();
        String now = Instant.now().toString();
        return client.v1().events().inNamespace(ns).resource(new EventBuilder()
                .withNewMetadata().withGenerateName(c.getMetadata().getName() + ".").withNamespace(ns).endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder().withKind("PersistentVolumeClaim").withNamespace(ns)
                        .withName(c.getMetadata().getName()).withUid(c.getMetadata().getUid()).build())
                .withReason(reason).withMessage(message).withType("Normal")
                .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                .withNewSource().withComponent(component).endSource()
                .build()).create().getMetadata().getName();
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
