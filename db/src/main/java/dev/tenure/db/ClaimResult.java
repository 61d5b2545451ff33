package dev.tenure.db;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** The answer of {@link JdbcLeaseStore#claim}: the job is ours with a new epoch, or someone else's lease is live. */
sealed interface ClaimResult {

    /**
     * The job is ours. {@code epoch} is the new fencing token; {@code claimedAt} and {@code leaseExpiresAt} are
     * database-clock times; {@code remaining} is the lease time left when the database answered (use it with a
     * monotonic clock started <em>before</em> the claim was sent, never with the application's wall clock).
     */
    record Claimed(long epoch, Instant claimedAt, Instant leaseExpiresAt, Duration remaining) implements ClaimResult {}

    /**
     * Someone else's lease is live. {@code remaining} is how long it still runs by the database clock (zero when the
     * row was locked by a transaction still open, or when it just ended), so a waiter can sleep exactly that long.
     */
    record Held(
            @Nullable String owner, long epoch, @Nullable Instant leaseExpiresAt, Duration remaining)
            implements ClaimResult {}
}
