package dev.tenure;

import dev.tenure.metrics.LeaseMetrics;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * {@link dev.tenure.Lease#extend}: the owner-checked renewal with a new TTL. It takes the lease's call slot (waiting for
 * a renewal in flight), so it and the watchdog's renewals reach the store one at a time and in order; on success the
 * lease's deadline and renewals follow the new TTL ({@link DefaultLease#ttlChanged}). Thread-safe; the whole call,
 * waiting included, is bounded by the engine's call timeout.
 */
final class TtlChange {

    private final LeaseEngine engine;
    private final LeaseStore store;
    private final LeaseMetrics metrics;
    private final Duration callTimeout;
    private final long settleNanos;

    TtlChange(LeaseEngine engine, LeaseStore store, LeaseMetrics metrics, Duration callTimeout, long settleNanos) {
        this.engine = engine;
        this.store = store;
        this.metrics = metrics;
        this.callTimeout = callTimeout;
        this.settleNanos = settleNanos;
    }

    ExtendResult extend(DefaultLease lease, Duration newTtl) {
        LeaseOptions term = term(lease, newTtl);
        if (!active(lease)) {
            return ExtendResult.NOT_HELD;
        }
        engine.awaitHandOffSettled(lease);
        long deadline = engine.now() + callTimeout.toNanos();
        takeSlot(lease, deadline);
        try {
            return stillValid(lease) ? send(lease, term, deadline) : ExtendResult.NOT_HELD;
        } finally {
            lease.endCall();
            engine.nudgeWatchdog(); // the next renewal may now be due sooner
        }
    }

    /** The lease's options with {@code newTtl}, or an {@link IllegalArgumentException} naming the value. */
    private static LeaseOptions term(DefaultLease lease, Duration newTtl) {
        if (newTtl == null) {
            throw new IllegalArgumentException("newTtl must not be null (lease '" + lease.key() + "')");
        }
        if (newTtl.isNegative() || newTtl.isZero()) {
            throw new IllegalArgumentException(
                    "newTtl must be positive (got " + newTtl + ", lease '" + lease.key() + "')");
        }
        try {
            return lease.options().withTtl(newTtl);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "newTtl " + newTtl + " does not fit lease '" + lease.key() + "': " + e.getMessage(), e);
        }
    }

    private static boolean active(DefaultLease lease) {
        return lease.state() == LeaseState.ACTIVE && !lease.releasing();
    }

    /** Still held, and its local validity has not run out (if it has, it is LOST now, as the watchdog would make it). */
    private boolean stillValid(DefaultLease lease) {
        if (!active(lease)) {
            return false;
        }
        if (engine.now() - lease.validUntil() >= 0) {
            engine.loseNow(lease, "no successful renewal before the local validity deadline");
            return false;
        }
        return true;
    }

    /** Waits until this call holds the lease's call slot (a renewal or another TTL change in flight ends first). */
    private void takeSlot(DefaultLease lease, long deadline) {
        boolean taken;
        try {
            taken = lease.takeCall(engine::now, deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseStoreUnavailableException(
                    "interrupted while waiting for a renewal of lease '" + lease.key() + "'; its TTL was not changed",
                    lease.key(),
                    e);
        }
        if (!taken) {
            throw new LeaseStoreUnavailableException(
                    "another call moving the expiry of lease '" + lease.key()
                            + "' (a renewal or TTL change) was still in flight after " + callTimeout
                            + "; its TTL was not changed",
                    lease.key(),
                    null);
        }
    }

    private ExtendResult send(DefaultLease lease, LeaseOptions term, long deadline) {
        if (Thread.currentThread().isInterrupted()) {
            throw new LeaseStoreUnavailableException(
                    "interrupted before changing the TTL of lease '" + lease.key() + "'; nothing was sent",
                    lease.key(),
                    null);
        }
        long sentAt = engine.now();
        Boolean ours;
        try {
            CompletableFuture<Boolean> call =
                    LeaseEngine.send(() -> store.renew(lease.key(), lease.owner(), term.ttl()));
            ours = Futures.await(call, Duration.ofNanos(Math.max(1, deadline - sentAt)), lease.key());
        } catch (LeaseStoreUnavailableException e) {
            metrics.renewFailure();
            lease.callFailed(sentAt, term, engine.now() + settleNanos);
            throw new LeaseStoreUnavailableException(
                    "the TTL of lease '" + lease.key() + "' was not changed to "
                            + term.ttl() + " (" + e.getMessage()
                            + "); it may still change in the store, so the lease is "
                            + "trusted only as long as the shorter of its TTLs holds it",
                    lease.key(),
                    e);
        }
        if (Boolean.TRUE.equals(ours)) {
            return lease.ttlChanged(sentAt, term) ? ExtendResult.EXTENDED : ExtendResult.NOT_HELD;
        }
        engine.loseNow(lease, "the store refused a TTL change: it no longer holds this owner's lease");
        return lease.state() == LeaseState.LOST ? ExtendResult.REFUSED : ExtendResult.NOT_HELD;
    }
}
