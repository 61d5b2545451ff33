package dev.tenure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * What a coordinated job sees while it runs. Thread-safe.
 *
 * <p><b>Exactly-once database effects.</b> A fire's database effects happen exactly once when they commit through
 * {@link #completeInTransaction} (or a transaction that calls {@link #fence} first and {@link #complete} last): the
 * business writes and "this fire is done" commit together or not at all, and only under this run's epoch. A holder
 * that commits and then stalls past its lease, or whose outcome cannot be recorded afterwards, no longer makes the
 * next claim run the fire again. The business tables must live in the same Postgres database as Tenure's schema.
 *
 * <p><b>Effects outside the database</b>, such as an HTTP call or an e-mail, are at most once per lease, not per fire.
 * A holder paused past its lease may have made the call before another process runs the fire. Give the other system
 * an idempotency key: {@link #idempotencyKey()} is the same for every attempt of a fire. Where the other system can
 * compare, give it the epoch as a fencing token too: {@link #epoch()} only grows.
 *
 * <p>Check {@link #isLeaseValid()} (or react to {@link #isCancelled()}) between units of work. Both follow the
 * database lease only.
 *
 * <p><b>Reaching it.</b> Work handed to {@link JobCoordinator#run} gets it as its argument. Everywhere else the same
 * call reaches it: {@link #current()}, on the thread that runs the fire's work, in a Quartz job's {@code execute}, in
 * a Spring Batch job guarded by Tenure, in a {@code @Coordinated} method, and inside {@link JobCoordinator#run}. Pass
 * it on to threads of your own.
 */
public interface JobContext {

    /**
     * The run of the fire whose work executes on this thread.
     *
     * @throws IllegalStateException on a thread that runs no coordinated fire now
     */
    static JobContext current() {
        JobContext run = CurrentRun.get();
        if (run == null) {
            throw new IllegalStateException(
                    "no coordinated run on this thread: JobContext.current() works on the thread "
                            + "that runs a fire's work (a Quartz job's execute, a guarded Spring Batch job, a @Coordinated method, "
                            + "work given to JobCoordinator.run); pass the JobContext on to threads of your own");
        }
        return run;
    }

    /** The run of the fire whose work executes on this thread, if there is one ({@link #current()}). */
    static Optional<JobContext> find() {
        return Optional.ofNullable(CurrentRun.get());
    }

    String jobKey();

    String fireKey();

    /** This run's epoch: the database fencing token, strictly greater than any earlier run's. */
    long epoch();

    /** This run's owner id: unique per acquisition (and per process). */
    String owner();

    /** {@code jobKey/fireKey}: the same for every attempt of this fire, for systems outside the database to deduplicate. */
    default String idempotencyKey() {
        return jobKey() + "/" + fireKey();
    }

    /**
     * True while this run's database lease is valid by the local deadline. The database lease is the authority: the
     * Valkey lease in front of it is a filter, and losing it (a Valkey outage, a failover) does not make this false.
     */
    boolean isLeaseValid();

    /**
     * True once this run's database lease was lost: refused on renewal, force-released, or not renewed before its
     * local deadline. Stop as soon as possible, because further fenced writes will be rejected. A lost Valkey lease
     * alone does not cancel the run, in any mode.
     */
    boolean isCancelled();

    /**
     * The fence check for the caller's open transaction on {@code connection}. It locks the job's row, so that a new
     * owner's claim waits until this transaction ends. It throws {@link StaleOwnerException} if this run's epoch is no
     * longer current, so the transaction rolls back.
     */
    void fence(Connection connection) throws SQLException;

    /**
     * The fence check plus "this fire is done", in the caller's open transaction on {@code connection}: call it last,
     * right before the commit. Once that commit succeeds the fire is complete for good: the run reports
     * {@link RunOutcome.Status#EXECUTED} even if its lease runs out afterwards, and no later claim runs the fire again.
     * If the transaction rolls back, nothing is completed.
     */
    void complete(Connection connection) throws SQLException;

    /**
     * The common case, hard to get wrong: opens a transaction on {@code dataSource} (or joins Spring's current
     * transaction on it, when spring-jdbc is on the class path and one is active), fences, runs {@code work},
     * completes the fire and commits; rolls back (or marks Spring's transaction rollback-only) on any exception,
     * which is then rethrown.
     *
     * <p>With spring-jdbc on the class path, Spring's data access on {@code dataSource} inside {@code work}
     * ({@code JdbcTemplate}, {@code JdbcClient}, {@code DataSourceUtils}) uses this transaction, also when Tenure opens
     * it: its writes commit with the completion or roll back with it. When the joined Spring transaction began before
     * the run (a {@code @Transactional} caller), the run's outcome is recorded and its leases released when that
     * transaction ends (see {@link ActiveRun#finish}). Any isolation level works; at REPEATABLE READ and SERIALIZABLE the
     * transaction must begin inside the run (an older one is refused with SQLSTATE 40001).
     *
     * @throws StaleOwnerException  when the epoch is stale: nothing committed
     * @throws IllegalStateException if Spring's active transaction is not on {@code dataSource}
     */
    default <T> @Nullable T completeInTransaction(DataSource dataSource, ConnectionWork<T> work) throws SQLException {
        return CompletingTransaction.run(this, dataSource, work);
    }
}
