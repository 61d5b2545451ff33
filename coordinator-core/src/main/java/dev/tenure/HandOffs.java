package dev.tenure;

import dev.tenure.metrics.LeaseMetrics;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Hand-off of a released lease to a waiter of this process in one store call, and the turns that bound how long a run
 * of hand-offs may keep a key from other processes ({@link Leases.Builder#maxLocalHandOffs},
 * {@link Leases.Builder#maxTurn}). {@link LeaseEngine#release} decides when to hand off; this class does it.
 */
final class HandOffs {

    private final LeaseEngine engine;
    private final LeaseStore store;
    private final LeaseMetrics metrics;
    private final Watchdog watchdog;
    private final Owners owners;
    private final Duration callTimeout;
    private final int maxLocalHandOffs;
    private final long maxTurnNanos;

    HandOffs(
            LeaseEngine engine,
            LeaseStore store,
            LeaseMetrics metrics,
            Watchdog watchdog,
            Owners owners,
            Duration callTimeout,
            int maxLocalHandOffs,
            Duration maxTurn) {
        this.engine = engine;
        this.store = store;
        this.metrics = metrics;
        this.watchdog = watchdog;
        this.owners = owners;
        this.callTimeout = callTimeout;
        this.maxLocalHandOffs = maxLocalHandOffs;
        this.maxTurnNanos = maxTurn.toNanos();
    }

    /** Whether {@code lease}'s release ends this process's turn: it has been handed on as often as a turn allows. */
    boolean turnUsedUp(DefaultLease lease) {
        return lease.turnHandOffs >= maxLocalHandOffs;
    }

    /**
     * Hands {@code lease}, being released, to the parked local waiter {@code w}: early when the store transfers a key
     * atomically and the waiter needs no fencing token, else once the store has confirmed the transfer.
     */
    ReleaseResult handOff(DefaultLease lease, KeyWaiters q, Waiter w) {
        return store.atomicHandOff() && !w.options.fencingToken()
                ? earlyHandOff(lease, q, w)
                : confirmedHandOff(lease, q, w);
    }

    /**
     * The waiter gets the lease before the store confirms the transfer: this process holds the key in the store
     * without a gap (the old owner's entry stays until the transfer script replaces it), so the new lease is
     * valid until the old one's deadline, and only the confirmation extends it. No renewal is sent before the
     * confirmation (it would be refused). If the store says the old owner no longer held the key, or does not
     * answer, the new lease is LOST at once. The releasing thread waits for the answer; the waiter does not.
     */
    private ReleaseResult earlyHandOff(DefaultLease lease, KeyWaiters q, Waiter w) {
        long sentAt = engine.now();
        DefaultLease next = new DefaultLease(
                engine, lease.key(), w.owner(), w.options, OptionalLong.empty(), sentAt, w.thread, lease.validUntil());
        next.renewAt(
                Math.min(next.nextRenewAt(), lease.nextRenewAt())); // it holds the predecessor's term until renewed
        next.startCall(); // no renewal before the confirmation
        q.localHolder = next;
        watchdog.register(next);
        w.grant(next);
        // The hand-off that ends a turn (the maxLocalHandOffs-th in a row, or the first after maxTurn), and one that
        // changes the TTL, asks the store whether others wait and sets the waiter's TTL; the others only move the lease
        // to the waiter, keeping its expiry (one command).
        boolean due = turnDue(lease, sentAt);
        boolean full = due || !w.options.ttl().equals(lease.options().ttl());
        CompletableFuture<AcquireResult> transfer = full
                ? store.handOff(lease.key(), lease.owner(), next.owner(), w.options.ttl(), false)
                : store.handOffKeepingExpiry(lease.key(), lease.owner(), next.owner(), w.options.ttl());
        try {
            return settleEarlyHandOff(lease, next, w, transfer, sentAt, full, due);
        } finally {
            next.endCall();
            next.handOffSettled.complete(null);
            watchdog.rescheduled(next);
        }
    }

    private ReleaseResult settleEarlyHandOff(
            DefaultLease lease,
            DefaultLease next,
            Waiter w,
            CompletableFuture<AcquireResult> transfer,
            long sentAt,
            boolean full,
            boolean due) {
        AcquireResult r;
        try {
            r = Futures.await(transfer, callTimeout, lease.key());
        } catch (LeaseStoreUnavailableException e) {
            metrics.releaseFailure();
            engine.loseNow(next, "the store did not confirm the hand-off to this owner: " + e.getMessage());
            engine.cleanUp(lease.key(), lease.owner(), lease.options().ttl());
            engine.cleanUp(lease.key(), next.owner(), w.options.ttl());
            lease.markReleased();
            return ReleaseResult.UNCONFIRMED;
        }
        if (r instanceof AcquireResult.Acquired a) {
            if (full) {
                countHandOff(lease, next, a, sentAt, due);
                // the store now holds the key for the waiter's TTL from the transfer: set (not only extend) the
                // deadline, or a waiter with a shorter TTL than its predecessor's would trust the lease past the
                // store's expiry
                next.ttlChanged(sentAt, w.options);
            } else {
                // the store kept the predecessor's expiry (same TTL): so does the deadline, until the first renewal
                next.continueTurn(lease, lease.turnHandOffs + 1);
            }
            lease.markReleased();
            metrics.acquire(LeaseMetrics.AcquireOutcome.ACQUIRED, engine.now() - sentAt);
            return ReleaseResult.RELEASED;
        }
        engine.loseNow(next, "the previous owner no longer held the key when it was handed over");
        if (lease.markLost("the store no longer held this owner's lease at hand-off")) {
            metrics.lost();
        }
        return ReleaseResult.LOST;
    }

    /** A lease handed over early is released only after the store has the transfer, so store operations stay in order. */
    void awaitSettled(DefaultLease lease) {
        try {
            Futures.await(lease.handOffSettled, callTimeout.multipliedBy(2), lease.key());
        } catch (LeaseStoreUnavailableException e) {
            engine.loseNow(lease, "its hand-off was never settled");
        }
    }

    /**
     * Whether handing {@code lease} on at {@code at} ends this process's turn on the key, if others wait: by the count
     * of hand-offs in the turn, or by its length. A turn travels with the leases handed from thread to thread.
     */
    private boolean turnDue(DefaultLease lease, long at) {
        return lease.turnHandOffs + 1 >= maxLocalHandOffs || at - lease.turnStartedAt >= maxTurnNanos;
    }

    /**
     * Counts the hand-off of {@code lease} to {@code next}, sent at {@code sentAt}, whose store answer said whether
     * others wait: if they do and the turn is due, {@code next}'s release passes the key on ({@link LeaseEngine#release}); if nobody
     * waits, a new turn starts with {@code next}.
     */
    private void countHandOff(
            DefaultLease lease, DefaultLease next, AcquireResult.Acquired a, long sentAt, boolean due) {
        if (a.othersWaiting()) {
            next.continueTurn(lease, due ? maxLocalHandOffs : lease.turnHandOffs + 1);
        } else {
            next.startTurn(sentAt);
        }
    }

    /**
     * Hand-off when the waiter asked for a fencing token (or the store's hand-off is not atomic): the new lease only
     * exists once the store has answered. If it does not answer, the waiter waits on under a fresh owner id: the
     * clean-up of the id the hand-off used may still be pending, and would release a lease the waiter took under it.
     */
    private ReleaseResult confirmedHandOff(DefaultLease lease, KeyWaiters q, Waiter w) {
        long sentAt = engine.now();
        String to = w.owner();
        AcquireResult r;
        try {
            r = Futures.await(
                    LeaseEngine.send(() -> store.handOff(lease.key(), lease.owner(), to, w.options.ttl(), true)),
                    callTimeout,
                    lease.key());
        } catch (LeaseStoreUnavailableException e) {
            metrics.releaseFailure();
            engine.cleanUp(lease.key(), lease.owner(), lease.options().ttl());
            engine.cleanUp(lease.key(), to, w.options.ttl());
            w.replaceOwner(owners.next());
            lease.markReleased();
            backToWaiting(w);
            return ReleaseResult.UNCONFIRMED;
        }
        if (r instanceof AcquireResult.Acquired a) {
            lease.markReleased();
            metrics.acquire(LeaseMetrics.AcquireOutcome.ACQUIRED, engine.now() - sentAt);
            DefaultLease next =
                    new DefaultLease(engine, lease.key(), to, w.options, a.fencingToken(), sentAt, w.thread);
            countHandOff(lease, next, a, sentAt, turnDue(lease, sentAt));
            q.localHolder = next;
            watchdog.register(next);
            w.grant(next);
            return ReleaseResult.RELEASED;
        }
        if (lease.markLost("the store no longer held this owner's lease at hand-off")) {
            metrics.lost();
        }
        backToWaiting(w);
        return ReleaseResult.LOST;
    }

    private static void backToWaiting(Waiter w) {
        w.state.set(Waiter.WAITING);
        w.wake();
    }
}
