package dev.provbench.local;

import io.fabric8.kubernetes.client.KubernetesClientException;

import java.time.Duration;

/**
 * How long a stand-in waits for each answer of the in-memory API, which answers in microseconds where
 * kube-apiserver takes milliseconds. A controller that sends its requests one after another (the PV
 * controller's claim worker) is limited by this round trip on a real control plane; the stand-ins wait it out
 * after every request so that the same limit shows locally.
 */
record ApiLatency(Duration roundTrip) {
    ApiLatency {
        if (roundTrip.isNegative()) {
            throw new IllegalArgumentException("a round trip is not negative");
        }
    }

    /** Sends one request and waits out its round trip (also when it fails). */
    <T> T send(java.util.function.Supplier<T> request) {
        try {
            return request.get();
        } finally {
            answered();
        }
    }

    /** Waits out one request's round trip; call it after the request, in a {@code finally}. */
    void answered() {
        long nanos = roundTrip.toNanos();
        if (nanos > 0) {
            try {
                Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KubernetesClientException("interrupted", e);
            }
        }
    }
}
