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
 */
public final class LimitingInterceptor implements Interceptor {
    public static final String NAME = "provbench-rate-limiter";

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
        stats.request(info, waited);
    }

    @Override
    public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        stats.response(Integer.toString(response.code()));
    }

    @Override
    public void afterConnectionFailure(HttpRequest request, Throwable failure) {
        stats.response("connection-error");
    }
}
