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
 * renewal; if it runs out, or a renewal is refused, the lease turns {@link LeaseState#LOST} and the
 * {@linkplain #onLost listeners} run.
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

    /** Releases in the store, only if still ours. Idempotent. Never throws for store faults. */
    ReleaseResult release();

    /** Same as {@link #release()}. */
    @Override
    default void close() {
        release();
    }
}
