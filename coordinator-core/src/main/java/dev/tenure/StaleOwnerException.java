package dev.tenure;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A fence check failed: the caller's epoch (and owner id) is no longer the job's current one, or its lease has expired
 * by the ledger's clock (the database's, for Postgres). Thrown inside the caller's transaction so that it rolls back: whatever the caller wrote in
 * that transaction must not commit. The caller is a stale owner and must stop working on the job.
 *
 * <p>Carries the job key, the epoch and owner the caller presented, and what the database holds now (epoch 0 and a
 * null owner when the job has no row). The owner is compared as well as the epoch: after a Postgres failover that
 * lost acknowledged commits, an epoch could otherwise be handed out twice.
 *
 * <p>The same exception on every ledger, Postgres and in memory. It is a {@link LeaseLostException}: code that stops
 * on a lost lease stops on a refused fence too.
 */
public class StaleOwnerException extends LeaseLostException {

    private final long expectedEpoch;
    private final long currentEpoch;
    private final @Nullable String currentOwner;
    private final @Nullable Instant leaseExpiresAt;
    /** True when the job's row still named the caller but its run was no longer theirs. */
    private final boolean runTaken;

    public StaleOwnerException(
            String jobKey,
            long expectedEpoch,
            String presentedOwner,
            long currentEpoch,
            @Nullable String currentOwner,
            @Nullable Instant leaseExpiresAt) {
        super(
                jobKey,
                presentedOwner,
                message(jobKey, expectedEpoch, presentedOwner, currentEpoch, currentOwner, leaseExpiresAt),
                null);
        this.expectedEpoch = expectedEpoch;
        this.currentEpoch = currentEpoch;
        this.currentOwner = currentOwner;
        this.leaseExpiresAt = leaseExpiresAt;
        this.runTaken = false;
    }

    /**
     * The job's epoch and owner are still the caller's, but its run is not: {@code why} says what became of it (the
     * sweeper recorded its fire MISSED, say). Refused as any stale owner is: the caller rolls back and stops.
     */
    public StaleOwnerException(String jobKey, long epoch, String owner, String why) {
        super(
                jobKey,
                owner,
                "Stale owner of job '" + jobKey + "': presented epoch " + epoch + " as " + owner + ", but " + why
                        + ". Roll back this transaction and stop working on the job.",
                null);
        this.expectedEpoch = epoch;
        this.currentEpoch = epoch;
        this.currentOwner = owner;
        this.leaseExpiresAt = null;
        this.runTaken = true;
    }

    private static String message(
            String jobKey,
            long expected,
            String presented,
            long current,
            @Nullable String owner,
            @Nullable Instant expiresAt) {
        String why = expected != current
                ? "its epoch is now " + current + (owner == null ? " (no owner)" : " (owner " + owner + ")")
                : owner == null
                        ? "the lease of epoch " + current + " was released"
                        : !owner.equals(presented)
                                ? "epoch " + current + " now belongs to owner " + owner
                                        + " (an epoch handed out twice: did a database failover lose commits?)"
                                : "the lease of epoch " + current + " is not live by the database clock"
                                        + (expiresAt == null ? "" : " (expired at " + expiresAt + ")");
        return "Stale owner of job '" + jobKey + "': presented epoch " + expected + " as " + presented + ", but " + why
                + ". Roll back this transaction and stop working on the job.";
    }

    /** The epoch the caller presented. */
    public long expectedEpoch() {
        return expectedEpoch;
    }

    /** The job's epoch in the database (0 if the job has no row). */
    public long currentEpoch() {
        return currentEpoch;
    }

    /** The job's owner in the database, or null if nobody holds it. */
    public @Nullable String currentOwner() {
        return currentOwner;
    }

    /** When the current lease expires (database clock), or null if nobody holds it. */
    public @Nullable Instant leaseExpiresAt() {
        return leaseExpiresAt;
    }

    /** True when the epoch and owner still matched but the lease had expired (nobody had claimed it yet). */
    public boolean expired() {
        return !runTaken && expectedEpoch == currentEpoch && currentOwner != null && currentOwner.equals(owner());
    }
}
