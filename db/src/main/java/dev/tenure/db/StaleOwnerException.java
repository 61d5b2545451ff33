package dev.tenure.db;

import dev.tenure.TenureException;

import java.time.Instant;

/**
 * A fence check failed: the caller's epoch (and owner id) is no longer the job's current one, or its database lease
 * has expired by the database clock. Thrown inside the caller's transaction so that it rolls back: whatever the caller wrote in
 * that transaction must not commit. The caller is a stale owner and must stop working on the job.
 *
 * <p>Carries the job key, the epoch and owner the caller presented, and what the database holds now (epoch 0 and a
 * null owner when the job has no row). The owner is compared as well as the epoch: after a Postgres failover that
 * lost acknowledged commits, an epoch could otherwise be handed out twice.
 */
public class StaleOwnerException extends TenureException {

    private final long expectedEpoch;
    private final String presentedOwner;
    private final long currentEpoch;
    private final String currentOwner;
    private final Instant leaseExpiresAt;

    public StaleOwnerException(String jobKey, long expectedEpoch, String presentedOwner, long currentEpoch,
                               String currentOwner, Instant leaseExpiresAt) {
        super(message(jobKey, expectedEpoch, presentedOwner, currentEpoch, currentOwner, leaseExpiresAt), jobKey);
        this.expectedEpoch = expectedEpoch;
        this.presentedOwner = presentedOwner;
        this.currentEpoch = currentEpoch;
        this.currentOwner = currentOwner;
        this.leaseExpiresAt = leaseExpiresAt;
    }

    private static String message(String jobKey, long expected, String presented, long current, String owner,
                                  Instant expiresAt) {
        String why = expected != current
                ? "its epoch is now " + current + (owner == null ? " (no owner)" : " (owner " + owner + ")")
                : owner == null ? "the lease of epoch " + current + " was released"
                : !owner.equals(presented) ? "epoch " + current + " now belongs to owner " + owner
                + " (an epoch handed out twice: did a database failover lose commits?)"
                : "the lease of epoch " + current + " is not live by the database clock (expired at " + expiresAt + ")";
        return "Stale owner of job '" + jobKey + "': presented epoch " + expected + " as " + presented + ", but " + why
                + ". Roll back this transaction and stop working on the job.";
    }

    /** The owner id the caller presented. */
    public String presentedOwner() {
        return presentedOwner;
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
    public String currentOwner() {
        return currentOwner;
    }

    /** When the current lease expires (database clock), or null if nobody holds it. */
    public Instant leaseExpiresAt() {
        return leaseExpiresAt;
    }

    /** True when the epoch and owner still matched but the lease had expired (nobody had claimed it yet). */
    public boolean expired() {
        return expectedEpoch == currentEpoch && currentOwner != null && currentOwner.equals(presentedOwner);
    }
}
