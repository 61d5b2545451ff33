package dev.tenure.spi;

import dev.tenure.Holder;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The run records of the job coordinator: one row per (job key, fire key), written only under the current epoch.
 * The database module implements it; core stays free of JDBC drivers ({@code java.sql} is the JDK's).
 * Implementations are thread-safe and raise {@link dev.tenure.LeaseStoreUnavailableException} (or a subclass) on
 * faults, within bounded time.
 *
 * <p>Wherever a holder proves itself (fence, complete, finish) it presents its epoch <em>and</em> its owner id, which
 * is unique per acquisition: an epoch alone could be handed out twice after a database failover that lost commits.
 */
public interface RunLedger {

    /** What {@link #startRun} found. */
    sealed interface FireStart {
        /** Run it now; {@code runId} identifies the run row. */
        record Started(String runId) implements FireStart {}

        /**
         * This fire already completed, or the sweeper recorded it MISSED ({@code missed}; then {@code owner} is the
         * sweeper): do not run it again.
         */
        record AlreadyDone(String runId, String owner, long epoch, boolean missed) implements FireStart, FireClaim {
            /** A completed fire. */
            public AlreadyDone(String runId, String owner, long epoch) {
                this(runId, owner, epoch, false);
            }
        }

        /** This fire is running under a live lease of its owner. */
        record InProgress(String runId, String owner, long epoch) implements FireStart {}
    }

    /**
     * What {@link #claimAndStart} found: {@link Started}, {@link Held}, or {@link FireStart.AlreadyDone} (the fire
     * already completed or was recorded MISSED: nothing was claimed).
     */
    sealed interface FireClaim {
        /**
         * The job is the caller's, under {@code epoch}, and the fire's run {@code runId} has started; the database
         * lease has {@code remaining} left (as the database answered).
         */
        record Started(long epoch, String runId, java.time.Duration remaining) implements FireClaim {}

        /** Another owner's lease is live for {@code remaining} more (zero when unknown): nothing was claimed. */
        record Held(@Nullable String owner, long epoch, java.time.Duration remaining) implements FireClaim {}
    }

    /** What {@link #finish} found. */
    enum Finished {
        /** The outcome was recorded under the current epoch. */
        RECORDED,
        /**
         * The run had already COMPLETED inside its own business transaction ({@link #complete}); that stays, whatever
         * the epoch is now.
         */
        ALREADY_DONE,
        /**
         * The epoch (or owner) is no longer current, or the run is no longer its holder's (the sweeper recorded its fire
         * MISSED): nothing was recorded; a RUNNING run of a stale epoch is marked rejected as stale.
         */
        STALE
    }

    /**
     * The fire's completed run (or its MISSED record), if there is one: a read without locks, for skipping a fire that
     * is done before claiming anything (a completed or missed fire is final).
     */
    Optional<FireStart.AlreadyDone> completedRun(String jobKey, String fireKey);

    /** Records that {@code owner} starts {@code fireKey} of {@code jobKey} under {@code epoch}. */
    FireStart startRun(String jobKey, String fireKey, long epoch, String owner);

    /**
     * Records the outcome, only if {@code epoch} of {@code owner} is still the job's current epoch and run {@code runId}
     * is still theirs. It leaves the job's lease to its holder, who releases it right after (so that the holder's lease
     * handle ends RELEASED, not LOST). The run's row decides the answer: a COMPLETED run stays COMPLETED
     * ({@link Finished#ALREADY_DONE}, whatever {@code succeeded} says); a run the sweeper recorded MISSED stays
     * MISSED ({@link Finished#STALE}).
     *
     * <p><b>After a completion.</b> A completion counts only if the run's row is COMPLETED after its commit. So a holder
     * whose work called {@link #complete} never asks for a success: it passes {@code succeeded = false} with an
     * {@code error} that says the completion was rolled back. If the completion committed, the answer is
     * ALREADY_DONE; if it was rolled back (with its transaction, or to a savepoint), the run is still RUNNING and is
     * recorded FAILED ({@link Finished#RECORDED}), so that the next claim takes the fire over. A completion whose
     * transaction is still open when this runs is waited for (a database ledger waits for the run row's lock) and
     * answered by how it ended.
     */
    Finished finish(String jobKey, long epoch, String owner, String runId, boolean succeeded, @Nullable String error);

    /**
     * Keeps {@code traceId} (the run's trace, when a tracer made one) on run {@code runId}, for operators to find its
     * spans: what the defaults of {@link #startRun(String, String, long, String, String)} and
     * {@link #claimAndStart(String, String, String, java.time.Duration, String)} call after the start (a fault is
     * ignored: the run goes on). Default: not kept.
     */
    default void recordTraceId(String jobKey, String runId, String traceId) {}

    /**
     * {@link #startRun(String, String, long, String)} for a traced run: {@code traceId} (null: none) is kept on the run's
     * row, replacing an earlier attempt's. Default: the start, then {@link #recordTraceId} when there is a trace id; a
     * ledger that can write it in the start's own statement overrides this.
     */
    default FireStart startRun(String jobKey, String fireKey, long epoch, String owner, @Nullable String traceId) {
        FireStart s = startRun(jobKey, fireKey, epoch, owner);
        if (traceId != null && s instanceof FireStart.Started started) {
            keepTraceId(this, jobKey, started.runId(), traceId);
        }
        return s;
    }

    /** {@link #claimAndStart(String, String, String, java.time.Duration)} for a traced run, as {@link #startRun(String, String, long, String, String)}. */
    default FireClaim claimAndStart(
            String jobKey, String fireKey, String owner, java.time.Duration ttl, @Nullable String traceId) {
        FireClaim c = claimAndStart(jobKey, fireKey, owner, ttl);
        if (traceId != null && c instanceof FireClaim.Started started) {
            keepTraceId(this, jobKey, started.runId(), traceId);
        }
        return c;
    }

    /** {@link #recordTraceId}, whose fault never stops the run that started. */
    private static void keepTraceId(RunLedger ledger, String jobKey, String runId, String traceId) {
        try {
            ledger.recordTraceId(jobKey, runId, traceId);
        } catch (RuntimeException e) {
            // the run goes on without its trace id on the row
        }
    }

    /**
     * Records that the run {@code runId} of {@code epoch} of {@code owner} was cut short because its holder shuts down:
     * a RUNNING run turns ABANDONED with {@code reason}, so that the next claim takes the fire over at once. Only under
     * the current epoch and owner, as {@link #finish}; a run that completed in its own transaction stays COMPLETED
     * ({@link Finished#ALREADY_DONE}), and one recorded MISSED stays MISSED ({@link Finished#STALE}). When
     * {@link #claimsAndStarts()}, the job's lease is cleared in the same step, as {@link #finishAndRelease} does;
     * otherwise the holder releases it next.
     *
     * <p>Default: {@link #finishAndRelease} or {@link #finish} as a failure with {@code reason}, for a ledger that has no
     * ABANDONED state.
     */
    default Finished abandon(String jobKey, long epoch, String owner, String runId, String reason) {
        return claimsAndStarts()
                ? finishAndRelease(jobKey, epoch, owner, runId, false, reason)
                : finish(jobKey, epoch, owner, runId, false, reason);
    }

    /**
     * The fence check for the work's own transaction on {@code connection}: locks the job's row (in a mode that does
     * not hold up renewals) and throws a {@link dev.tenure.TenureException} subclass if {@code epoch} of {@code owner}
     * is no longer current, so the caller's transaction rolls back. A newer claim waits for this lock until the caller's
     * transaction ends.
     */
    void fence(Connection connection, String jobKey, long epoch, String owner) throws SQLException;

    /**
     * The fence check plus "this fire is done", in the caller's open transaction on {@code connection}: marks run
     * {@code runId} COMPLETED under {@code epoch} of {@code owner}, so that the caller's one commit makes its business
     * writes and the completion durable together, or neither. Throws as {@link #fence} does when the epoch is stale,
     * and throws the same {@link dev.tenure.StaleOwnerException} when the run is no longer the holder's because the
     * sweeper recorded its fire MISSED, even if the epoch is still current.
     */
    void complete(Connection connection, String jobKey, long epoch, String owner, String runId) throws SQLException;

    /**
     * Whether {@link #claimAndStart} and {@link #finishAndRelease} are implemented: the database lease and the run row
     * in one store, so that a run costs two commits of its own (start, outcome) instead of five.
     */
    default boolean claimsAndStarts() {
        return false;
    }

    /**
     * One step instead of "completed already?", "claim" and "start": claims {@code jobKey}'s database lease for
     * {@code owner} for {@code ttl} (where no other owner's lease is live) and starts the fire's run, unless the fire
     * already completed (then nothing is claimed). On a fault whose outcome is unknown the lease may be held under
     * {@code owner} until its TTL: release it with the lease store's release-if-mine.
     *
     * @throws UnsupportedOperationException unless {@link #claimsAndStarts()}
     */
    default FireClaim claimAndStart(String jobKey, String fireKey, String owner, java.time.Duration ttl) {
        throw new UnsupportedOperationException("this run ledger does not claim and start in one step");
    }

    /**
     * {@link #finish} and the release of the database lease of {@code epoch} of {@code owner}, in one step.
     *
     * @throws UnsupportedOperationException unless {@link #claimsAndStarts()}
     */
    default Finished finishAndRelease(
            String jobKey, long epoch, String owner, String runId, boolean succeeded, @Nullable String error) {
        throw new UnsupportedOperationException("this run ledger does not finish and release in one step");
    }

    /**
     * {@link #complete} and the release of the database lease of {@code epoch} of {@code owner}, in the caller's open
     * transaction on {@code connection}, for a run whose work is that one transaction
     * ({@link dev.tenure.JobCoordinator#runInTransaction}): the caller's commit makes the business writes, the completion
     * and the release durable together, or none of them. Throws as {@link #complete} does. Where the transaction cannot
     * release the lease (at REPEATABLE READ or SERIALIZABLE, after a renewal committed since its snapshot), it completes
     * the run only and returns false: the holder then releases the lease after the commit.
     *
     * @return true if the caller's commit releases the lease; false if it only completes the run
     * @throws UnsupportedOperationException unless {@link #claimsAndStarts()}
     */
    default boolean completeAndRelease(Connection connection, String jobKey, long epoch, String owner, String runId)
            throws SQLException {
        throw new UnsupportedOperationException("this run ledger does not complete and release in one step");
    }

    /**
     * This ledger's own id: the same for every process on this ledger (its database and schema), different for any
     * other ledger. The completed-fire markers that the coordinator leaves in a Valkey shared by several ledgers carry
     * it, so that a marker answers only for the ledger that wrote it ({@link LeaseStore#releaseCompleted}). Read once
     * when the ledger opens; never null; never contains {@code /}. Default: empty, for a ledger without an id. Ledgers
     * without an id tell their markers apart from each other's by fire key alone: do not let two of them share a
     * Valkey namespace.
     */
    default String ledgerId() {
        return "";
    }

    /** Who holds the job's database lease now, as the database sees it (empty if nobody). Default: unknown. */
    default Optional<Holder> holder(String jobKey) {
        return Optional.empty();
    }
}
