package dev.tenure.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Natural batching for a store's calls: an item goes out at once while fewer than {@code maxInFlight} calls are in
 * flight; otherwise it waits in a queue and leaves with everything queued behind it (up to {@code maxBatch}) in the next
 * call, as soon as a call returns. So a lone item pays no extra latency, and under load many items share one round
 * trip instead of one call each. The sender completes each item itself; if a call fails (or the sender throws),
 * {@code onFailure} gets the batch and the error. Lock-free; never blocks a caller. Used by Tenure's Valkey store (script
 * calls) and its JDBC store (renewal statements).
 *
 * @param <T> one item of a call
 */
public final class CallBatcher<T> {

    private final ConcurrentLinkedQueue<T> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final int maxInFlight;
    private final int maxBatch;
    private final Function<List<T>, CompletableFuture<?>> sender;
    private final BiConsumer<List<T>, Throwable> onFailure;

    /**
     * @param maxInFlight calls in flight at once (at least 1)
     * @param maxBatch    items per call at most (at least 1)
     * @param sender      sends one call for the batch; its future completes when the call has ended
     * @param onFailure   told of a batch whose call failed, to fail the items the sender did not complete
     */
    public CallBatcher(
            int maxInFlight,
            int maxBatch,
            Function<List<T>, CompletableFuture<?>> sender,
            BiConsumer<List<T>, Throwable> onFailure) {
        if (maxInFlight < 1 || maxBatch < 1) {
            throw new IllegalArgumentException(
                    "maxInFlight and maxBatch must be >= 1 (got " + maxInFlight + ", " + maxBatch + ")");
        }
        this.maxInFlight = maxInFlight;
        this.maxBatch = maxBatch;
        this.sender = sender;
        this.onFailure = onFailure;
    }

    /** Queues {@code item} and sends what the in-flight limit allows. */
    public void submit(T item) {
        queue.add(item);
        drain();
    }

    private void drain() {
        while (!queue.isEmpty()) {
            int f = inFlight.get();
            if (f >= maxInFlight) {
                return;
            }
            if (!inFlight.compareAndSet(f, f + 1)) {
                continue;
            }
            List<T> batch = new ArrayList<>(Math.min(maxBatch, 16));
            T item;
            while (batch.size() < maxBatch && (item = queue.poll()) != null) {
                batch.add(item);
            }
            if (batch.isEmpty()) {
                inFlight.decrementAndGet();
                continue;
            }
            send(batch);
        }
    }

    private void send(List<T> batch) {
        CompletableFuture<?> call;
        try {
            call = sender.apply(batch);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((v, e) -> {
            if (e != null) {
                onFailure.accept(batch, e);
            }
            inFlight.decrementAndGet();
            drain();
        });
    }
}
