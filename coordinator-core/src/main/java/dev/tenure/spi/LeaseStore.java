package dev.tenure.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Where leases live: Valkey, or the database in DB mode. Implementations are thread-safe and never block the
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

    /** Extends the lease to {@code ttl} from now, only if {@code owner} holds it. {@code false} = not yours. */
    CompletableFuture<Boolean> renew(String key, String owner, Duration ttl);

    /** Deletes the lease only if {@code owner} holds it, and wakes waiters. {@code false} = not yours. */
    CompletableFuture<Boolean> release(String key, String owner);

    /**
     * Passes a held lease from {@code fromOwner} straight to {@code toOwner} (a waiter in the same process), in
     * one round trip where the store can. Completes with {@link AcquireResult.Held} if {@code fromOwner} no
     * longer held it (then nothing changed). The default releases, then acquires.
     */
    default CompletableFuture<AcquireResult> handOff(String key, String fromOwner, String toOwner, Duration ttl,
                                                     boolean fencingToken) {
        return release(key, fromOwner).thenCompose(
                released -> tryAcquire(key, toOwner, ttl, fencingToken));
    }

    /**
     * {@link #handOff} for the common case of a hand-off inside one process, where the waiter asked for no fencing
     * token and the same TTL: the store may keep the lease's current expiry instead of setting a new one (Valkey does
     * it in one command instead of two), reports no {@link AcquireResult.Acquired#othersWaiting()} (false), and the
     * engine keeps the new holder's deadline at its predecessor's until the first renewal. The default is
     * {@link #handOff} without a fencing token.
     */
    default CompletableFuture<AcquireResult> handOffKeepingExpiry(String key, String fromOwner, String toOwner,
                                                                  Duration ttl) {
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
        return () -> { };
    }

    /** Releases the store's resources (connections, threads). Idempotent. */
    @Override
    void close();
}
