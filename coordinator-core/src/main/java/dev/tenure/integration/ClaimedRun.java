package dev.tenure.integration;

import dev.tenure.JobContext;
import dev.tenure.Lease;
import dev.tenure.RunOutcome;
import org.jspecify.annotations.Nullable;

/**
 * A claimed run of one fire, between {@link dev.tenure.JobCoordinator#begin} and {@link #finish}, for hosts whose start
 * and end of a run happen in two callbacks (a Quartz trigger listener and job listener, a Spring Batch launch and its
 * {@code afterJob}). It holds the job's database lease (and Valkey lease, if used) and the fire's run row, and it is
 * the run's {@link JobContext}.
 *
 * <p>{@link #finish} records the outcome under this run's epoch (only if it is still current: the database decides, not
 * the local lease deadline), then releases the database lease and after it the Valkey lease. The database lease alone
 * decides whether the run is cancelled. A run that {@link #complete completed} in its own transaction is EXECUTED
 * whatever happened after that commit; one whose completion was rolled back (with its transaction, or to a savepoint)
 * is FAILED, so that the fire runs again. {@link #close()} finishes a run that was not finished as FAILED ("closed
 * without an outcome"). If the process dies instead, the leases expire by their TTL and the next claim marks the run
 * ABANDONED (unless it completed).
 *
 * <p>Thread-safe. Tenure implements it; integrations only use it.
 */
public interface ClaimedRun extends JobContext, AutoCloseable {

    /**
     * Records the outcome and releases the leases. {@code error == null} means the work succeeded
     * ({@link RunOutcome.Status#EXECUTED}); otherwise {@link RunOutcome.Status#FAILED}; either becomes
     * {@link RunOutcome.Status#LEASE_LOST} if the database no longer has this run's epoch and owner. May be called from
     * any thread; idempotent: a second call returns the first call's outcome. If the fire was completed in a Spring
     * transaction that has not ended yet, the outcome is recorded and the leases released when that transaction ends,
     * and this returns {@link RunOutcome.Status#EXECUTED} meanwhile.
     *
     * @throws dev.tenure.LeaseStoreUnavailableException if the database could not record it (the leases are released
     *                                                   all the same); the work's own exception, if any, is added to
     *                                                   it as suppressed
     */
    <T> RunOutcome<T> finish(@Nullable T result, @Nullable Throwable error);

    /** True once {@link #finish} (or {@link #close()}) ran. */
    boolean isFinished();

    /**
     * Runs {@code action} once when the database lease is lost (at once if it already is) while the work runs, on
     * Tenure's watchdog thread: it must not block. Never runs once {@link #finish} has begun.
     */
    ClaimedRun onCancelled(Runnable action);

    /** The job's database lease: its state, remaining validity and epoch ({@link Lease#fencingToken()}). */
    Lease lease();

    /** True if the run went to the database directly because Valkey was unreachable. */
    boolean viaFallback();

    /** Fence checks (and completions) that passed so far. */
    int fenceChecks();

    /** This node's name ({@link dev.tenure.Tenure#nodeName()}), as the run's log lines carry it. */
    @Nullable
    String node();

    /** Finishes the run as FAILED if nobody finished it; never throws for store faults. */
    @Override
    void close();
}
