package dev.tenure.db;

import dev.tenure.internal.CallBatcher;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Renewals of many leases in one statement ({@link LeaseRows#renewOwners}), each lease still checked against its own
 * owner. Natural batching ({@link CallBatcher}, as in the Valkey store): a renewal goes out at once while fewer than {@code maxInFlight}
 * statements run; otherwise it waits and leaves with everything queued behind it, as soon as one returns. So a lone
 * renewal pays no extra latency, and a watchdog renewing 10,000 leases at once sends a few statements instead of
 * 10,000 (which would also overflow the call queue). A statement that fails on a lock timeout (one of its rows is
 * locked, e.g. by a hand-off of the same lease) is retried one lease per statement, so one busy row does not fail the
 * others. Lock-free; never blocks a caller.
 */
final class RenewalBatches {

    private record Request(String key, String owner, long ttlMillis, CompletableFuture<Boolean> result) {}

    private final AsyncCalls calls;
    private final LeaseRows rows;
    private final CallBatcher<Request> batcher;

    RenewalBatches(AsyncCalls calls, LeaseRows rows, int maxInFlight, int maxBatch) {
        this.calls = calls;
        this.rows = rows;
        this.batcher = new CallBatcher<>(
                maxInFlight,
                maxBatch,
                this::send,
                (batch, e) -> batch.forEach(r -> r.result().completeExceptionally(e)));
    }

    /** Extends {@code owner}'s live lease on {@code key} (already validated) to {@code ttlMillis} from now. */
    CompletableFuture<Boolean> renew(String key, String owner, long ttlMillis) {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        batcher.submit(new Request(key, owner, ttlMillis, f));
        return f;
    }

    private CompletableFuture<Void> send(List<Request> batch) {
        if (batch.size() == 1) {
            Request r = batch.get(0);
            return one(r).thenAccept(x -> {});
        }
        String[] keys = new String[batch.size()];
        String[] owners = new String[batch.size()];
        Long[] ttls = new Long[batch.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = batch.get(i).key();
            owners[i] = batch.get(i).owner();
            ttls[i] = batch.get(i).ttlMillis();
        }
        return calls.call("renew", keys.length + " leases", () -> rows.renewOwners(keys, owners, ttls))
                .handle((renewed, err) -> settle(batch, renewed, err))
                .thenCompose(f -> f);
    }

    private CompletableFuture<Void> settle(List<Request> batch, Set<String> renewed, Throwable err) {
        if (err == null) {
            batch.forEach(r -> r.result().complete(renewed.contains(r.key() + '\u0000' + r.owner())));
            return CompletableFuture.completedFuture(null);
        }
        Throwable cause = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                ? err.getCause()
                : err;
        if (cause instanceof LedgerUnavailableException u && Faults.LOCK_TIMEOUT.equals(u.sqlState())) {
            return CompletableFuture.allOf(batch.stream().map(this::one).toArray(CompletableFuture[]::new));
        }
        batch.forEach(r -> r.result().completeExceptionally(cause));
        return CompletableFuture.completedFuture(null);
    }

    private CompletableFuture<Boolean> one(Request r) {
        CompletableFuture<Boolean> f = calls.call(
                "renew",
                r.key(),
                () -> rows.renewOwner(r.key(), r.owner(), java.time.Duration.ofMillis(r.ttlMillis())));
        f.whenComplete((ok, e) -> {
            if (e != null) {
                r.result().completeExceptionally(e);
            } else {
                r.result().complete(ok);
            }
        });
        return f;
    }
}
