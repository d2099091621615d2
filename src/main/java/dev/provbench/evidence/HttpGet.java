package dev.provbench.evidence;

import dev.provbench.kube.Transport;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The evidence sources' HTTP reads (the driver's stats and calls, the metrics pages of the driver and
 * csi-provisioner): one client for all of a run's sources, HTTP/1.1 with kept-alive connections, answers bounded
 * in size and never echoed in an error. It is a Vert.x client on the application's Vert.x, the one the run's
 * kube-apiserver client already runs on, rather than the JDK's {@code java.net.http} client: that one brought its
 * own selector and worker threads and ~260 classes into every run for a few reads a second (issue 27, ninth
 * sitting, docs/benchmarks.md). Outside the application (unit tests) it starts a Vert.x of its own on first use,
 * closed by {@link #close()}. A read blocks its caller, so it must not be called on an event loop.
 */
public final class HttpGet implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MS = 2000;
    private Vertx ownVertx;
    private HttpClient http;
    private boolean closed;
    /** Runs on the caller's thread between starting a request and listening to it; a test's stand-in for the caller
     *  being descheduled there. */
    Runnable afterStart = () -> { };

    private synchronized HttpClient client() {
        if (closed) {
            throw new IllegalStateException("the evidence reads' HTTP client is closed");
        }
        if (http == null) {
            Vertx vertx = Transport.applicationVertx();
            if (vertx == null) {
                vertx = ownVertx = Transport.ownVertx();
            }
            // HTTP/1.1 without an h2c upgrade (Vert.x asks for none on HTTP/1.1), kept-alive connections
            http = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_1_1)
                    .setConnectTimeout(CONNECT_TIMEOUT_MS).setKeepAlive(true).setMaxPoolSize(4));
        }
        return http;
    }

    /**
     * GETs {@code url} with the bearer {@code token} if present. An answer other than 200 is an error that names
     * the URL and the status ({@code on401} added for a 401), and so is a body longer than {@code maxBytes}, and
     * no whole answer within {@code timeout}.
     */
    public byte[] read(URI url, Optional<String> token, Duration timeout, int maxBytes, String on401)
            throws Exception {
        if (Context.isOnEventLoopThread()) {
            throw new IllegalStateException("HttpGet.read blocks and must not run on an event loop");
        }
        RequestOptions req = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(url.toString())
                .setIdleTimeout(timeout.toMillis());
        token.ifPresent(t -> req.putHeader("Authorization", "Bearer " + t));
        CompletableFuture<byte[]> done = new CompletableFuture<>();
        Future<HttpClientRequest> started = client().request(req);
        afterStart.run();
        // The answer's listener is registered in the request's, on the request's own context, before the request is
        // sent: so it runs before the answer's body and end are handled. (Registered from the caller's thread after
        // send(), it came after them when that thread was descheduled meanwhile: Vert.x's "Response already ended",
        // and the read waited out its timeout. HttpGetTest holds the caller there.)
        started.onComplete(ar -> {
            if (ar.failed()) {
                done.completeExceptionally(ar.cause());
                return;
            }
            HttpClientRequest request = ar.result();
            request.response().onComplete(rr -> {
                if (rr.failed()) {
                    done.completeExceptionally(rr.cause());
                } else {
                    take(rr.result(), url, maxBytes, on401, done);
                }
            });
            request.end().onFailure(done::completeExceptionally);
        });
        try {
            return done.get(timeout.toMillis() + CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        } catch (TimeoutException e) {
            done.cancel(false);
            throw new IOException("no whole answer from " + url + " within " + timeout.toMillis() + " ms");
        }
    }

    /** Takes the answer {@code rsp} into {@code done}: its body if it is a 200 of at most {@code maxBytes}. */
    private static void take(HttpClientResponse rsp, URI url, int maxBytes, String on401,
                             CompletableFuture<byte[]> done) {
        // also takes the reset's own error below (a completed read ignores it), which Vert.x would log
        rsp.exceptionHandler(e -> done.completeExceptionally(
                new IOException("reading the answer of " + url + ": " + e.getClass().getSimpleName())));
        if (rsp.statusCode() != 200) { // what a refusal says is not read, nor kept
            done.completeExceptionally(new IllegalStateException("HTTP " + rsp.statusCode() + " from " + url
                    + (rsp.statusCode() == 401 && on401 != null ? " (" + on401 + ")" : "")));
            rsp.request().reset();
            return;
        }
        Buffer body = Buffer.buffer();
        rsp.handler(b -> {
            if (done.isDone()) {
                return;
            }
            if (body.length() + b.length() > maxBytes) {
                done.completeExceptionally(new IllegalStateException(
                        "the answer of " + url + " is longer than " + maxBytes + " bytes"));
                rsp.request().reset();
            } else {
                body.appendBuffer(b);
            }
        });
        rsp.endHandler(v -> done.complete(body.getBytes()));
    }

    /** Closes the connections (and the Vert.x of its own, if it started one). */
    @Override
    public synchronized void close() {
        closed = true;
        if (http != null) {
            http.close();
        }
        if (ownVertx != null) {
            ownVertx.close();
        }
    }
}
