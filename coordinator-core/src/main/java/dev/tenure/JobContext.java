package dev.tenure;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What a coordinated job sees while it runs. Thread-safe.
 *
 * <p>Check {@link #isLeaseValid()} (or react to {@link #isCancelled()}) between units of work, and call
 * {@link #fence(Connection)} inside every transaction whose writes must not be made by a stale owner: it
 * locks the job's row and throws if the epoch moved on, so the transaction rolls back.
 */
public interface JobContext {

    String jobKey();

    String fireKey();

    /** This run's epoch: the database fencing token, strictly greater than any earlier run's. */
    long epoch();

    String owner();

    /** True while both leases (database, and Valkey if used) are valid. */
    boolean isLeaseValid();

    /** True once a lease was lost: stop as soon as possible; further fenced writes will be rejected. */
    boolean isCancelled();

    /** The fence check for the caller's transaction on {@code connection} (see {@link dev.tenure.spi.RunLedger#fence}). */
    void fence(Connection connection) throws SQLException;
}
