package dev.tenure.spi;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Where leases live: Valkey, or the database in the database mode. Implementations are thread-safe and never block the
 * calling thread: every operation returns a future that completes within the store's configured timeouts,
 * exceptionally with a {@link dev.tenure.LeaseStoreUnavailableException} on faults.
 *
 * <p>Keys reaching a store are already validated (see {@link LeaseKeys}); owners are unique per acquisition.
 * Every mutating operation compares the owner: a store never renews or releases a lease that is not the
 * caller's.
 */
public interface LeaseStore extends AutoCloseable {

    /**
     * Grants the lease to {@code owner} for {@code ttl} if nobody holds it, in one round trip. When
     * {@code fencingToken} is true the grant also increments and returns the key's fencing counter.
     */
    CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean fencingToken);

    /**
     * {@link #tryAcquire(String, String, Duration, boolean)} for a process that waits for the key: a store that
     * {@linkplain #queuesWaiters() queues waiting processes} also grants a turn reserved for {@code queuedAs} (see
     * {@link #releaseTurn}), and if the key is held puts {@code queuedAs} at the tail of the key's queue (once). The
     * default ignores {@code queuedAs}.
     *
     * @param queuedAs the waiting process's (engine's) id, the same for all its waiters and attempts on any key
     */
    default CompletableFuture<AcquireResult> tryAcquire(
            String key, String owner, Duration ttl, boolean fencingToken, String queuedAs) {
        return tryAcquire(key, owner, ttl, fencingToken);
    }

    /**
     * {@link #tryAcquire(String, String, Duration, boolean, String)} for the filter in front of a coordinated run of
     * fire {@code fireKey}: a store that keeps {@linkplain #releaseCompleted completion markers} answers
     * {@link AcquireResult.AlreadyDone} when the key holds the marker of this fire, and treats a marker of another fire
     * as a free key. The default ignores {@code fireKey}.
     *
     * <p>The coordinator names the fire with its ledger's id, {@code <ledgerId>/<fireKey>}
     * ({@link RunLedger#ledgerId()}), here and in {@link #releaseCompleted}: a marker that another ledger left on the same
     * key names another fire. A store compares the fire keys it is given, nothing more.
     *
     * @param queuedAs the waiting process's id as for {@link #tryAcquire(String, String, Duration, boolean, String)},
     *                 or null for a single attempt
     */
    default CompletableFuture<AcquireResult> tryAcquireFire(
            String key, String owner, Duration ttl, boolean fencingToken, String fireKey, @Nullable String queuedAs) {
        return queuedAs == null
                ? tryAcquire(key, owner, ttl, fencingToken)
                : tryAcquire(key, owner, ttl, fencingToken, queuedAs);
    }

    /**
     * {@link #release} by the holder of a coordinated run's filter after the database recorded fire {@code fireKey}
     * COMPLETED: a store that can replaces the lease by a marker of that fire for {@code keep}, so that a process that
     * arrives later for the same fire learns it from {@link #tryAcquireFire} without asking the database. The marker
     * is no holder: any other acquire takes the key as if it were free. Wakes waiters as a release does. The default
     * releases.
     */
    default CompletableFuture<Boolean> releaseCompleted(String key, String owner, String fireKey, Duration keep) {
        return release(key, owner);
    }

    /** Extends the lease to {@code ttl} from now, only if {@code owner} holds it. {@code false} = not yours. */
    CompletableFuture<Boolean> renew(String key, String owner, Duration ttl);

    /** Deletes the lease only if {@code owner} holds it, and wakes waiters. {@code false} = not yours. */
    CompletableFuture<Boolean> release(String key, String owner);

    /** What {@link #releaseTurn} did with the lease. */
    enum TurnRelease {
        /** {@code owner} did not hold the lease; nothing changed. */
        NOT_OURS,
        /** The lease was deleted: the key is free. */
        FREED,
        /**
         * The lease was replaced by a short reservation for the next process in the key's queue, which alone can take
         * it (and is told so); the releasing process, if it asked, is at the queue's tail.
         */
        PASSED
    }

    /**
     * True if the store keeps a queue of the processes waiting for a key, so that a release passes the key to the
     * next one in turn instead of freeing it for a race (Valkey). Then a process whose waiting attempt was refused
     * is queued, and is told when its turn comes; it need not poll more than about once a second. The default: no.
     */
    default boolean queuesWaiters() {
        return false;
    }

    /**
     * {@link #release} that, in a store that {@linkplain #queuesWaiters() queues waiting processes}, passes the key
     * to the next process in the key's queue if one waits, and puts {@code requeueAs} (unless null) at the queue's
     * tail: how a process with waiters of its own yields its turn to the others. The default releases.
     */
    default CompletableFuture<TurnRelease> releaseTurn(String key, String owner, String requeueAs) {
        return release(key, owner).thenApply(ok -> ok ? TurnRelease.FREED : TurnRelease.NOT_OURS);
    }

    /**
     * Takes {@code queuedAs} out of the key's queue (its last waiter is gone) and passes on a turn reserved for it.
     * Best effort and asynchronous: a stale entry costs the others at most one short reservation. The default does
     * nothing.
     */
    default void leaveQueue(String key, String queuedAs) {}

    /**
     * Passes a held lease from {@code fromOwner} straight to {@code toOwner} (a waiter in the same process), in
     * one round trip where the store can. Completes with {@link AcquireResult.Held} if {@code fromOwner} no
     * longer held it (then nothing changed). The default releases, then acquires.
     */
    default CompletableFuture<AcquireResult> handOff(
            String key, String fromOwner, String toOwner, Duration ttl, boolean fencingToken) {
        return release(key, fromOwner).thenCompose(released -> tryAcquire(key, toOwner, ttl, fencingToken));
    }

    /**
     * {@link #handOff} for the common case of a hand-off inside one process, where the waiter asked for no fencing
     * token and the same TTL: the store may keep the lease's current expiry instead of setting a new one (Valkey does
     * it in one command instead of two), reports no {@link AcquireResult.Acquired#othersWaiting()} (false), and the
     * engine keeps the new holder's deadline at its predecessor's until the first renewal. The default is
     * {@link #handOff} without a fencing token.
     */
    default CompletableFuture<AcquireResult> handOffKeepingExpiry(
            String key, String fromOwner, String toOwner, Duration ttl) {
        return handOff(key, fromOwner, toOwner, ttl, false);
    }

    /**
     * True if {@link #handOff} is atomic (no moment in which the key is free). Only then does the engine let the
     * next holder start before the store confirms the hand-off. The default implementation is not atomic.
     */
    default boolean atomicHandOff() {
        return false;
    }

    /**
     * How long after a caller gave up waiting for one of this store's calls (an acquire, a hand-off) that call may
     * still take effect in the store: by then it has surely ended there, applied or not. The engine cleans up after an
     * unknown outcome with a release-if-mine, and if that found nothing it looks once more after this time, so a grant
     * that was still queued or running cannot hold the key until its TTL ends.
     *
     * <p>The default, {@link Duration#ZERO}, means the store cannot say; the engine then waits its own call timeout.
     */
    default Duration longestCall() {
        return Duration.ZERO;
    }

    /**
     * Asks to be told, best effort, when a lease on {@code key} is released by anyone. Waiters poll anyway;
     * this only makes hand-off faster. Closing the returned handle ends the subscription.
     */
    default AutoCloseable subscribeReleases(String key, Runnable onRelease) {
        return () -> {};
    }

    /**
     * Whether a release of {@code key} would reach this process's subscription now (the store confirmed it). A waiter
     * queued in the store parks long only then; otherwise it polls with back-off as if there were no queue. The default:
     * no.
     */
    default boolean releasesReachUs(String key) {
        return false;
    }

    /**
     * {@link #subscribeReleases(String, Runnable)} for a process queued as {@code queuedAs}: a release that passes the
     * key to another process's turn does not wake it; one that frees the key, or passes the turn to it, does. The
     * default is the plain subscription.
     */
    default AutoCloseable subscribeReleases(String key, String queuedAs, Runnable onReleaseOrTurn) {
        return subscribeReleases(key, onReleaseOrTurn);
    }

    /**
     * Deletes the lease on {@code key} whoever holds it, and wakes its waiters: the second step of an operator's
     * force-release, after the database's. The holder's next renewal is refused, so it learns the lease LOST. Completes
     * with true if there was a lease. The default fails: this store cannot.
     */
    default CompletableFuture<Boolean> evict(String key) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getSimpleName() + " cannot delete a lease it does not own"));
    }

    /**
     * Asks whether the store answers now, with one read that changes nothing, within the store's timeouts. Completes
     * with empty if it answered, else with the problem in one line that names the server ({@link #describe}); never
     * exceptionally. The default answers empty at once: a store that cannot be asked.
     */
    default CompletableFuture<Optional<String>> probe() {
        return CompletableFuture.completedFuture(Optional.empty());
    }

    /**
     * What {@code failure} of one of this store's calls means, in one line for operators that names the server, e.g.
     * {@code "Valkey 10.0.0.5:6379: WRONGPASS: invalid username-password pair or user is disabled."}. The default: the
     * innermost message of the failure's causes.
     */
    default String describe(Throwable failure) {
        String message = null;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage();
            }
        }
        return message == null
                ? String.valueOf(failure)
                : message.strip().lines().findFirst().orElse(message);
    }

    /** Releases the store's resources (connections, threads). Idempotent. */
    @Override
    void close();
}
