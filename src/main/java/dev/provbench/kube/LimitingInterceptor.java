package dev.provbench.kube;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.vertx.core.Context;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Sees every request a fabric8 client sends — informer list and watch included — and passes it through
 * the client's {@link RateLimiter} before it goes out, as client-go does. A request issued on a Vert.x
 * event loop (fabric8 continues informers and retries there) must not block: it takes its token without
 * waiting, which puts the bucket in debt, so the next request waits for it instead. The bucket's arithmetic,
 * and so the rate, stay exactly client-go's.
 *
 * <p>Every attempt gets one outcome in {@link RequestStats}: its HTTP code here, or — fabric8 tells an
 * interceptor nothing when an attempt fails without an answer and retries are off — what the caller saw,
 * reported by the caller ({@link RequestStats#unanswered}).
 */
public final class LimitingInterceptor implements Interceptor {
    public static final String NAME = "provbench-rate-limiter";
    /**
     * Each attempt carries its id to the server and back into {@link #after}, which fabric8 may call more
     * than once for one attempt (a refused WebSocket upgrade); {@link RequestStats} counts the first.
     */
    public static final String ATTEMPT_HEADER = "X-Provbench-Attempt";

    private final RateLimiter limiter;
    private final RequestStats stats;

    public LimitingInterceptor(RateLimiter limiter, RequestStats stats) {
        this.limiter = limiter;
        this.stats = stats;
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        RequestInfo info = RequestInfo.of(request.method(), request.uri());
        long waited;
        if (Context.isOnEventLoopThread()) {
            waited = limiter.reserve();
            if (waited > 0) {
                stats.deferred();
            }
            waited = 0;
        } else {
            try {
                waited = limiter.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the client-side rate limiter", e);
            }
        }
        builder.setHeader(ATTEMPT_HEADER, Long.toString(stats.request(info, waited)));
    }

    @Override
    public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        long id = attempt(request);
        if (id > 0) {
            stats.answered(id, response.code());
        }
    }

    /** Called only when fabric8's own retries are on (they are off in {@link KubeClients}); kept for safety. */
    @Override
    public void afterConnectionFailure(HttpRequest request, Throwable failure) {
        long id = attempt(request);
        if (id > 0) {
            stats.unanswered(id, Failures.unanswered(failure));
        }
    }

    private static long attempt(HttpRequest request) {
        String h = request == null ? null : request.header(ATTEMPT_HEADER);
        try {
            return h == null ? 0 : Long.parseLong(h);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
