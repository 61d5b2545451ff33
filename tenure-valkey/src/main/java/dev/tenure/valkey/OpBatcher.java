package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Natural batching: an operation goes out at once while fewer than {@code maxInFlight} calls are in flight;
 * otherwise it waits in a queue and leaves with everything queued behind it in the next call, as soon as a
 * call returns. So a lone operation pays no extra latency, and under load many operations share one round
 * trip (and one pass through the client), instead of one call each. Lock-free; never blocks a caller.
 */
final class OpBatcher {

    private final ConcurrentLinkedQueue<Op> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final int maxInFlight;
    private final int maxBatch;
    private final Function<List<Op>, CompletableFuture<?>> sender;

    OpBatcher(int maxInFlight, int maxBatch, Function<List<Op>, CompletableFuture<?>> sender) {
        this.maxInFlight = maxInFlight;
        this.maxBatch = maxBatch;
        this.sender = sender;
    }

    void submit(Op op) {
        queue.add(op);
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
            List<Op> batch = new ArrayList<>(Math.min(maxBatch, 16));
            Op op;
            while (batch.size() < maxBatch && (op = queue.poll()) != null) {
                batch.add(op);
            }
            if (batch.isEmpty()) {
                inFlight.decrementAndGet();
                continue;
            }
            send(batch);
        }
    }

    private void send(List<Op> batch) {
        CompletableFuture<?> call;
        try {
            call = sender.apply(batch);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((v, e) -> {
            if (e != null) {
                batch.forEach(op -> op.fail(e));
            }
            inFlight.decrementAndGet();
            drain();
        });
    }
}
