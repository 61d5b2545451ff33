package dev.tenure;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * A held lease on one key. Thread-safe: any thread may query, release or close it.
 * Each acquisition has its own unique owner id, so a lease is never confused with an earlier or later
 * lease on the same key, not even one of the same thread.
 *
 * <p>Validity is judged locally on the monotonic clock, from the moment the acquiring request was sent:
 * {@code validUntil = sentAt + ttl - safetyMargin}. The watchdog pushes it forward on each successful
 * renewal (only {@link #extend} may move it earlier); if it runs out, or a renewal is refused, the lease turns
 * {@link LeaseState#LOST} and the {@linkplain #onLost listeners} run.
 */
public interface Lease extends AutoCloseable {

    /** The key as the caller gave it (without namespace). */
    String key();

    /** The unique owner id of this acquisition, as stored in the lease store. */
    String owner();

    LeaseState state();

    /** True while ACTIVE and the local validity deadline has not passed. */
    boolean isValid();

    /** Time left until the local validity deadline; zero once expired, released or lost. */
    Duration remaining();

    /**
     * The fencing token taken with this lease, when it was asked for. For Valkey leases this comes from an
     * INCR in the acquire script: monotonic only while Valkey keeps its data (a failover without
     * replication can repeat a token). Jobs that need a guaranteed epoch use the job coordinator.
     */
    OptionalLong fencingToken();

    /**
     * Runs {@code listener} once when the lease becomes LOST (immediately, on the caller's thread, if it
     * already is). Listeners run on Tenure's watchdog thread and must not block.
     */
    Lease onLost(Consumer<Lease> listener);

    /** Throws {@link LeaseLostException} unless the lease is still valid. For use before a critical write. */
    default void ensureValid() {
        if (!isValid()) {
            throw new LeaseLostException(key(), owner(), "state " + state() + ", no longer valid");
        }
    }

    /**
     * Changes this lease's TTL to {@code newTtl} from now, longer or shorter than the time left: an owner-checked
     * renewal with the new TTL (the store never changes a lease that is not this owner's). On success the store keeps
     * the lease until {@code newTtl} after the call, the local deadline becomes {@code sentAt + newTtl - safetyMargin}
     * (earlier than before, for a shortening), and from then on the watchdog renews with {@code newTtl}.
     *
     * <p>The lease is then held to its options {@linkplain LeaseOptions#withTtl with the new TTL}: a renewal period of
     * the default ttl/3 becomes newTtl/3 and the default safety margin is recomputed, while a {@code renewEvery} or
     * {@code safetyMargin} set explicitly stays (and must be shorter than {@code newTtl}). A lease acquired without
     * renewal simply expires {@code newTtl} after the call.
     *
     * <p>Ordered with the watchdog: a renewal in flight is waited for, and none is sent while this call is, so the store
     * applies them in the order the deadline assumes. Blocks for at most the call timeout of the {@link Leases} that
     * granted the lease (a lease handed over from a local holder first waits, up to twice that, for the store to confirm
     * the hand-off). Thread-safe.
     *
     * @return {@link ExtendResult#EXTENDED}; {@link ExtendResult#REFUSED} if the store no longer had the lease as this
     *         owner's (the lease is LOST now); {@link ExtendResult#NOT_HELD} if it was released or lost already, or
     *         its local validity had run out (nothing sent)
     * @throws LeaseStoreUnavailableException if the store failed or did not answer within the call timeout, or the
     *                                        thread is interrupted (nothing is sent if it already was; the flag stays
     *                                        set): the lease keeps its TTL and deadline, except that a shortening that
     *                                        was sent moves the deadline as if it had applied (it may have)
     * @throws IllegalArgumentException       if {@code newTtl} is null, not positive, under 10 ms, or not longer than
     *                                        the lease's safety margin or explicit {@code renewEvery}
     */
    ExtendResult extend(Duration newTtl);

    /** Releases in the store, only if still ours. Idempotent. Never throws for store faults. */
    ReleaseResult release();

    /** Same as {@link #release()}. */
    @Override
    default void close() {
        release();
    }
}
