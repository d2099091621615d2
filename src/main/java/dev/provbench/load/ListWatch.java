package dev.provbench.load;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.WebSocket;
import io.fabric8.kubernetes.client.http.WebSocketHandshakeException;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A list-watch cache of one resource, as client-go's reflector keeps one: LIST (in pages), then WATCH from the
 * list's resourceVersion with bookmarks, again from the last resourceVersion seen when the server ends a watch,
 * and LIST again when the server says that version is gone (HTTP 410, or an ERROR event with code 410). Each
 * list and event is read straight into {@link Views} (Jackson's streaming parser: no tree, no fabric8 model, no
 * registry lookup), and each change is passed to the handler on the thread that read it (a Vert.x event loop).
 * <p>
 * Why not fabric8's informer: reading only the views, its watch events still took 15 ms of CPU per second of a
 * 20 ops/s run's steady state, a fifth of the whole process (issue 27, docs/benchmarks.md): the event through
 * fabric8's serialization and its watch manager, its informer's queue, cache and indexes. This does only what the
 * waits read, over the same WebSocket watches.
 * <p>
 * Every request goes through {@code http}: the run client's HTTP client, so its limiter, its request counting
 * and its connections are the run's as before. A request sent from a Vert.x event loop (a relist, a new watch)
 * takes its limiter token without waiting ({@code kube.LimitingInterceptor}); a retry after a failure waits
 * (800 ms doubling to 30 s, client-go's reflector backoff) on {@code executor}.
 * <p>
 * Every LIST that completes is kept as a {@link Listing} (the first, and the last {@link #LISTINGS_KEPT} relists):
 * why it was sent, its pages, objects and bytes, its time from the first page's request to the cache replaced, and
 * the CPU time spent reading it (the threads that read its pages, {@code ThreadMXBean}): what the report's
 * {@code lists} says.
 */
public final class ListWatch<V extends Views.View> implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ListWatch.class);
    private static final JsonFactory JSON = new JsonFactory();
    static final int PAGE = 500;
    private static final long BACKOFF_FIRST_MS = 800;
    private static final long BACKOFF_MAX_MS = 30_000;
    /** Relists kept past the first LIST (their count is kept in full). */
    static final int LISTINGS_KEPT = 20;
    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();
    /** Whether this JVM measures a thread's CPU time; if not, a listing's {@code cpuNanos} is -1. */
    private static final boolean CPU_TIME = THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();

    /** Why a LIST was sent. */
    public enum Why {
        /** the start */
        FIRST,
        /** the watch's resourceVersion was gone (HTTP 410, or an ERROR event with code 410) */
        GONE,
        /** the list before it failed (or its continue token expired) */
        RETRY
    }

    /**
     * One LIST that completed: why, its pages, objects and bytes, from its first page's request until the cache was
     * replaced ({@code startNanos}, {@code endNanos}: this process's nanoTime), the CPU time of the threads that
     * read its pages and replaced the cache ({@code cpuNanos}; -1: not measured), and the whole process's CPU time
     * over that span ({@code processCpuNanos}: the transfer and TLS too, and whatever else the process did meanwhile;
     * -1: not measured).
     */
    public record Listing(Why why, int pages, int items, long bytes, long startNanos, long endNanos, long cpuNanos,
                          long processCpuNanos) {
        public double seconds() {
            return (endNanos - startNanos) / 1e9;
        }
    }

    /** A LIST in progress: its pages read so far. */
    private final class Pass {
        final Why why;
        final long start = System.nanoTime();
        final long processCpu = processCpuNow();
        final Map<String, V> into = new LinkedHashMap<>();
        int pages;
        long bytes;
        long cpu;

        Pass(Why why) {
            this.why = why;
        }
    }

    public interface Decoder<V> {
        /** Reads one object; the parser is at its START_OBJECT and is left at its END_OBJECT. */
        V read(JsonParser p) throws IOException;
    }

    interface Handler<V> {
        /** Added or changed (on a relist, every object listed). */
        void changed(V v);

        /**
         * Called before {@link #changed} when the cache did not have the object: it appeared (on the first list,
         * every object listed; on a relist, those listed anew).
         */
        default void appeared(V v) {
        }

        /** Gone: its last state as the watch gave it, or as the cache had it when a relist no longer lists it. */
        void deleted(V v);
    }

    private final HttpClient http;
    private final String url;
    private final String selector;
    private final Decoder<V> decoder;
    private final Handler<V> handler;
    private final Executor executor;
    private final String what;
    private final Map<String, V> cache = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> synced = new CompletableFuture<>();
    private volatile boolean closed;
    /** The current watch's listener (what {@link #watchFrom} ends). */
    private volatile Events events;
    private volatile String resourceVersion;
    private volatile long backoffMs = BACKOFF_FIRST_MS; // a race between two failures only shortens one pause
    private volatile Listing first;
    private final java.util.Deque<Listing> relists = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final java.util.concurrent.atomic.AtomicLong relistCount = new java.util.concurrent.atomic.AtomicLong();

    /**
     * @param url      the collection's URL, e.g. {@code https://host/api/v1/namespaces/ns/persistentvolumeclaims}
     * @param selector a label selector, or null
     */
    ListWatch(HttpClient http, String url, String selector, Decoder<V> decoder, Handler<V> handler,
            Executor executor) {
        this.http = http;
        this.url = url;
        this.selector = selector == null ? "" : "&labelSelector=" + URLEncoder.encode(selector, StandardCharsets.UTF_8);
        this.decoder = decoder;
        this.handler = handler;
        this.executor = executor;
        this.what = url.substring(url.lastIndexOf('/') + 1);
    }

    /** Starts; the future completes when the first LIST is in the cache, or fails with that LIST's failure. */
    CompletableFuture<Void> start() {
        list(new Pass(Why.FIRST), null);
        return synced;
    }

    /** The first LIST, once it completed; else null. */
    public Listing first() {
        return first;
    }

    /** The relists kept (the last {@link #LISTINGS_KEPT}), oldest first. */
    public List<Listing> relists() {
        return List.copyOf(relists);
    }

    /** Every relist that completed. */
    public long relistCount() {
        return relistCount.get();
    }

    /** What this list-watch lists: the collection's last path segment ({@code persistentvolumes}, …). */
    public String what() {
        return what;
    }

    /**
     * For hack/bench/beside-population (public for it; nothing of the tool calls it): the watch ends and starts again
     * from {@code rv} — a resourceVersion older than the server's watch cache is answered with 410, and the cache is
     * listed again ({@link Why#GONE}), the path a watch takes after an outage longer than the server keeps.
     */
    public void watchFrom(String rv) {
        Events e = events;
        resourceVersion = rv; // the current watch's events are not applied once it is told to end
        if (e != null) {
            e.restart(); // ended by us, as an ERROR event ends it: watched again at once, from rv
        }
    }

    /** The object of that name as the cache has it, or null. */
    V get(String name) {
        return cache.get(name);
    }

    /** Every object the cache has now. */
    List<V> values() {
        return List.copyOf(cache.values());
    }

    /** The resourceVersion the next watch starts from (the last one seen). */
    String resourceVersion() {
        return resourceVersion;
    }

    private HttpRequest request(String query) {
        return http.newHttpRequestBuilder().uri(url + "?" + query + selector).build();
    }

    /** One page of the LIST (its continue token, or null for the first); on the last page, the cache is replaced. */
    private void list(Pass pass, String cont) {
        if (closed) {
            return;
        }
        String q = "limit=" + PAGE + (cont == null ? "" : "&continue=" + URLEncoder.encode(cont, StandardCharsets.UTF_8));
        http.sendAsync(request(q), byte[].class).whenComplete((r, e) -> {
            if (closed) {
                return;
            }
            if (e != null || r.code() != 200) {
                if (r != null && r.code() == 410 && cont != null) { // the continue token expired: from the start
                    list(new Pass(Why.RETRY), null);
                } else {
                    listFailed(e != null ? new KubernetesClientException("LIST " + what + ": " + e.getMessage(), e)
                            : new KubernetesClientException("LIST " + what + ": HTTP " + r.code(), r.code(), null));
                }
                return;
            }
            String next;
            String rv;
            long cpu0 = cpuNow();
            byte[] body = r.body();
            try (JsonParser p = JSON.createParser(body)) {
                String[] meta = readList(p, pass.into);
                next = meta[1];
                rv = meta[0];
                pass.pages++;
                pass.bytes += body.length;
            } catch (IOException | RuntimeException x) {
                // the class, not the message: a parser's message quotes the answer
                listFailed(new KubernetesClientException("LIST " + what + ": an unreadable answer ("
                        + x.getClass().getSimpleName() + ")", x));
                return;
            }
            if (next != null && !next.isEmpty()) {
                pass.cpu += cpuNow() - cpu0;
                list(pass, next);
                return;
            }
            replace(pass.into);
            pass.cpu += cpuNow() - cpu0;
            long processCpu = processCpuNow();
            listed(new Listing(pass.why, pass.pages, pass.into.size(), pass.bytes, pass.start, System.nanoTime(),
                    CPU_TIME ? pass.cpu : -1, processCpu < 0 || pass.processCpu < 0 ? -1 : processCpu - pass.processCpu));
            resourceVersion = rv;
            backoffMs = BACKOFF_FIRST_MS;
            synced.complete(null);
            watch();
        });
    }

    /** This process's CPU time so far (every thread), or -1 where the JVM does not tell it. */
    private static long processCpuNow() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }

    private static long cpuNow() {
        return CPU_TIME ? THREADS.getCurrentThreadCpuTime() : 0;
    }

    private void listed(Listing l) {
        if (l.why() == Why.FIRST) {
            first = l;
            return;
        }
        relistCount.incrementAndGet();
        relists.addLast(l);
        while (relists.size() > LISTINGS_KEPT) {
            relists.pollFirst();
        }
    }

    private void listFailed(KubernetesClientException e) {
        if (!synced.isDone()) {
            closed = true; // as fabric8's informer: a first LIST that fails ends it, and says why
            synced.completeExceptionally(e);
            return;
        }
        LOG.debugf("%s; listing again after a pause", e.getMessage());
        later(() -> list(new Pass(Why.RETRY), null));
    }

    /** Reads a list's resourceVersion and continue token and its items (into {@code into}); returns {rv, continue}. */
    private String[] readList(JsonParser p, Map<String, V> into) throws IOException {
        String[] meta = new String[2];
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new IOException("not a JSON object");
        }
        Views.fields(p, (f, t) -> {
            switch (f) {
                case "metadata" -> Views.fields(p, (m, v) -> {
                    switch (m) {
                        case "resourceVersion" -> meta[0] = Views.text(p, v);
                        case "continue" -> meta[1] = Views.text(p, v);
                        default -> p.skipChildren();
                    }
                });
                case "items" -> {
                    if (t != JsonToken.START_ARRAY) {
                        p.skipChildren();
                        break;
                    }
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        V v = decoder.read(p);
                        if (v.name() != null) {
                            into.put(v.name(), v);
                        }
                    }
                }
                default -> p.skipChildren();
            }
        });
        if (meta[0] == null) {
            throw new IOException("a list without a resourceVersion");
        }
        return meta;
    }

    /** The cache becomes the list: every listed object is changed, every one it no longer has is deleted. */
    private void replace(Map<String, V> listed) {
        for (V v : listed.values()) {
            handle(v, cache.put(v.name(), v) == null, false);
        }
        for (var it = cache.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!listed.containsKey(e.getKey())) {
                it.remove();
                handle(e.getValue(), false, true);
            }
        }
    }

    private void handle(V v, boolean appeared, boolean deleted) {
        try {
            if (deleted) {
                handler.deleted(v);
            } else {
                if (appeared) {
                    handler.appeared(v);
                }
                handler.changed(v);
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "the handler of %s failed on %s", what, v.name()); // the cache is right; the watch goes on
        }
    }

    private void watch() {
        if (closed) {
            return;
        }
        // client-go's reflector: a timeout between 5 and 10 minutes, so that watches end (and re-list) spread out
        long timeout = 300 + ThreadLocalRandom.current().nextLong(300);
        URI uri = URI.create(url + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=" + timeout
                + "&resourceVersion=" + URLEncoder.encode(resourceVersion, StandardCharsets.UTF_8) + selector);
        Events events = new Events();
        this.events = events;
        http.newWebSocketBuilder().uri(uri).buildAsync(events).whenComplete((ws, e) -> {
            if (e != null) {
                Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                int code = c instanceof WebSocketHandshakeException h && h.getResponse() != null
                        ? h.getResponse().code() : 0;
                events.end(code == 410, "WATCH " + what + ": " + (code > 0 ? "HTTP " + code : c.getMessage()));
            } else if (closed) {
                ws.sendClose(1000, null);
            } else {
                events.opened(ws);
            }
        });
    }

    /** Runs {@code next} after the backoff, doubling it for the next failure. */
    private void later(Runnable next) {
        long ms = backoffMs;
        backoffMs = Math.min(BACKOFF_MAX_MS, backoffMs * 2);
        CompletableFuture.runAsync(() -> {
            if (!closed) {
                next.run();
            }
        }, CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS, executor));
    }

    /**
     * One watch, over a WebSocket as fabric8's informers watch (kube-apiserver sends one event per text message;
     * fabric8's mock server, which {@code --local} runs, serves watches over WebSocket only). Whatever ends it —
     * the server's timeout, an ERROR event, a failure, {@link #close} — is handled once ({@link #end}).
     */
    private final class Events implements WebSocket.Listener {
        private final AtomicBoolean ended = new AtomicBoolean();
        private final long started = System.nanoTime();
        private int events;
        private volatile WebSocket open; // once the upgrade completed
        private volatile boolean restart; // asked to end (watchFrom), perhaps before the upgrade completed

        void opened(WebSocket ws) {
            open = ws;
            if (restart) {
                stop(ws, false, null);
            }
        }

        /** Ends this watch to watch again at once: now if it is open, else as soon as it opens. */
        void restart() {
            restart = true;
            WebSocket ws = open;
            if (ws != null) {
                stop(ws, false, null);
            }
        }

        @Override
        public void onMessage(WebSocket ws, String text) {
            if (ended.get() || closed || restart) {
                return;
            }
            if (event(text, ws)) {
                ws.request();
            }
        }

        @Override
        public void onMessage(WebSocket ws, ByteBuffer bytes) {
            onMessage(ws, StandardCharsets.UTF_8.decode(bytes).toString());
        }

        @Override
        public void onClose(WebSocket ws, int code, String reason) {
            ws.sendClose(code, reason);
            // the server's timeout, or it went away: from the last resourceVersion seen, at once; but a watch closed
            // within a second without an event is a failure (client-go's "very short watch"), so no tight loop
            boolean tooShort = events == 0 && System.nanoTime() - started < 1_000_000_000L;
            end(false, tooShort ? "WATCH " + what + ": closed within a second without an event" : null);
        }

        @Override
        public void onError(WebSocket ws, Throwable e) {
            end(false, "WATCH " + what + " failed: " + e.getMessage());
        }

        /** The watch is over: list again ({@code relist}), or watch again, at once if {@code why} is null. */
        void end(boolean relist, String why) {
            if (!ended.compareAndSet(false, true) || closed) {
                return;
            }
            if (relist) {
                list(new Pass(Why.GONE), null);
            } else if (why == null) {
                watch();
            } else {
                LOG.debugf("%s; watching again after a pause", why);
                later(ListWatch.this::watch);
            }
        }

        /** Reads one event and applies it; false if the watch ends here. */
        private boolean event(String text, WebSocket ws) {
            Event<V> e;
            try {
                e = readEvent(text, decoder);
            } catch (IOException | RuntimeException x) {
                stop(ws, false, "WATCH " + what + ": an unreadable event (" + x.getClass().getSimpleName() + ")");
                return false;
            }
            V object = e.object();
            switch (e.type()) {
                case "ADDED", "MODIFIED" -> handle(object, cache.put(object.name(), object) == null, false);
                case "DELETED" -> {
                    cache.remove(object.name());
                    handle(object, false, true);
                }
                case "BOOKMARK" -> {
                }
                case "ERROR" -> {
                    stop(ws, e.code() == 410, "WATCH " + what + ": an ERROR event, code " + e.code());
                    return false;
                }
                default -> {
                    stop(ws, false, "WATCH " + what + ": an event of type " + e.type());
                    return false;
                }
            }
            if (object.resourceVersion() != null) {
                resourceVersion = object.resourceVersion();
            }
            events++;
            backoffMs = BACKOFF_FIRST_MS;
            return true;
        }

        private void stop(WebSocket ws, boolean relist, String why) {
            ws.sendClose(1000, null);
            end(relist, why);
        }
    }

    /** A watch event: its type, and its object (null for ERROR) or, for ERROR, its Status' code. */
    public record Event<V>(String type, V object, int code) {
    }

    /**
     * Reads one watch event (one line of a watch's body) with {@code decoder}. kube-apiserver writes the type
     * first, so the object is read as it streams; an object before its type is buffered first.
     */
    public static <V> Event<V> readEvent(String text, Decoder<V> decoder) throws IOException {
        String type = null;
        V object = null;
        int code = 0;
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("not a JSON object");
            }
            TokenBuffer early = null; // the object, if it came before the type
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                if ("type".equals(f)) {
                    type = t == JsonToken.VALUE_STRING ? p.getText() : null;
                } else if ("object".equals(f) && t == JsonToken.START_OBJECT) {
                    if (type == null) {
                        early = new TokenBuffer(p, null);
                        early.copyCurrentStructure(p);
                    } else if ("ERROR".equals(type)) {
                        code = statusCode(p);
                    } else {
                        object = decoder.read(p);
                    }
                } else {
                    p.skipChildren();
                }
            }
            if (early != null && type != null) {
                try (JsonParser q = early.asParser()) {
                    q.nextToken();
                    if ("ERROR".equals(type)) {
                        code = statusCode(q);
                    } else {
                        object = decoder.read(q);
                    }
                }
            }
        }
        if (type == null || (object == null && !"ERROR".equals(type))) {
            throw new IOException("an event without a type or an object");
        }
        return new Event<>(type, object, code);
    }

    /** The {@code code} of the Status object the parser is at (its START_OBJECT); 0 if it has none. */
    private static int statusCode(JsonParser p) throws IOException {
        int[] code = new int[1];
        Views.fields(p, (f, t) -> {
            if ("code".equals(f) && t == JsonToken.VALUE_NUMBER_INT) {
                code[0] = p.getIntValue();
            } else {
                p.skipChildren();
            }
        });
        return code[0];
    }

    @Override
    public void close() {
        closed = true;
        Events e = events; // a watch not open yet is closed as it opens (closed is set)
        WebSocket ws = e == null ? null : e.open;
        if (ws != null) {
            ws.sendClose(1000, null);
        }
    }
}
