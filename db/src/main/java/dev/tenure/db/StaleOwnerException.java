package dev.tenure.db;

import dev.tenure.TenureException;

import java.time.Instant;

/**
 * A fence check failed: the caller's epoch is no longer the job's current epoch, or its database lease has expired
 * by the database clock. Thrown inside the caller's transaction so that it rolls back: whatever the caller wrote in
 * that transaction must not commit. The caller is a stale owner and must stop working on the job.
 *
 * <p>Carries the job key, the epoch the caller presented, and what the database holds now (epoch 0 and a null owner
 * when the job has no row).
 */
public class StaleOwnerException extends TenureException {

    private final long expectedEpoch;
    private final long currentEpoch;
    private final String currentOwner;
    private final Instant leaseExpiresAt;

    public StaleOwnerException(String jobKey, long expectedEpoch, long currentEpoch, String currentOwner,
                               Instant leaseExpiresAt) {
        super(message(jobKey, expectedEpoch, currentEpoch, currentOwner, leaseExpiresAt), jobKey);
        this.expectedEpoch = expectedEpoch;
        this.currentEpoch = currentEpoch;
        this.currentOwner = currentOwner;
        this.leaseExpiresAt = leaseExpiresAt;
    }

    private static String message(String jobKey, long expected, long current, String owner, Instant expiresAt) {
        String why = expected != current
                ? "its epoch is now " + current + (owner == null ? " (no owner)" : " (owner " + owner + ")")
                : "the lease of epoch " + current + " is not live by the database clock (expired at " + expiresAt + ")";
        return "Stale owner of job '" + jobKey + "': presented epoch " + expected + ", but " + why
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
    public String currentOwner() {
        return currentOwner;
    }

    /** When the current lease expires (database clock), or null if nobody holds it. */
    public Instant leaseExpiresAt() {
        return leaseExpiresAt;
    }

    /** True when the epoch still matched but the lease had expired (nobody had claimed it yet). */
    public boolean expired() {
        return expectedEpoch == currentEpoch;
    }
}
