package dev.tenure.db;

import static dev.tenure.db.LedgerArgs.epoch;
import static dev.tenure.db.LedgerArgs.id;
import static dev.tenure.db.LedgerArgs.key;
import static dev.tenure.db.LedgerArgs.traceId;
import static dev.tenure.db.LedgerArgs.ttl;

import dev.tenure.DatabaseConfig;
import dev.tenure.Holder;
import dev.tenure.StaleOwnerException;
import dev.tenure.spi.RunLedger;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The job coordinator's {@link RunLedger} on Postgres: one row per fire ({@code job_run}), started and finished under
 * the epoch of a lease on {@code job_execution}, and fence checks inside the caller's transactions. Every operation is
 * one statement or one short transaction, and every time it compares comes from the database clock
 * ({@code clock_timestamp()}); the application's clock is never used.
 *
 * <p>{@link JdbcBackend} opens it next to the {@link JdbcLeaseStore}, on the same {@link LeaseRows}. The methods of
 * {@link RunLedger} take run ids as text and outcomes as booleans; each calls the method of the same name here that
 * takes them as a {@link UUID} and a {@link RunStatus}, which this package's tests call as well.
 *
 * <p>Thread-safe; holds no resources of its own (the caller owns the data source). Faults are
 * {@link LedgerUnavailableException}s, raised within the pool's timeouts; a stale epoch is a
 * {@link StaleOwnerException}; bad arguments are {@link IllegalArgumentException}s naming the value and the rule.
 */
final class JdbcRunLedger implements RunLedger {

    private final LeaseRows leases;
    private final RunRows runs;
    private final FenceChecks fences;
    private final String claimLockTimeout;
    private final String ledgerId;

    /**
     * The run ledger on {@code runs} and {@code fences}, which work on {@code leases}; {@code ledgerId} as read from the
     * schema's {@code tenure_ledger} table ({@link LedgerIds}). Its row locks wait at most the claim lock timeout of
     * {@code config}.
     */
    JdbcRunLedger(LeaseRows leases, RunRows runs, FenceChecks fences, DatabaseConfig config, String ledgerId) {
        this.leases = leases;
        this.runs = runs;
        this.fences = fences;
        this.claimLockTimeout =
                Long.toString(Math.max(1, config.claimLockTimeout().toMillis()));
        this.ledgerId = ledgerId;
    }

    /** The id in the schema's {@code tenure_ledger} table, as read when this ledger was opened. */
    @Override
    public String ledgerId() {
        return ledgerId;
    }

    @Override
    public Optional<FireStart.AlreadyDone> completedRun(String jobKey, String fireKey) {
        return runs.completedRun(key(jobKey), id("fireKey", fireKey))
                .map(r -> new FireStart.AlreadyDone(
                        r.runId().toString(), r.owner(), r.epoch(), r.status() == RunStatus.MISSED));
    }

    /** The run row of ({@code jobKey}, {@code fireKey}), if any; a read without locks. */
    Optional<RunRecord> runOf(String jobKey, String fireKey) {
        return runs.runOf(key(jobKey), id("fireKey", fireKey));
    }

    @Override
    public FireStart startRun(String jobKey, String fireKey, long epoch, String owner) {
        return startRun(jobKey, fireKey, epoch, owner, null);
    }

    /** The trace id is written by the statement that starts the run. */
    @Override
    public FireStart startRun(String jobKey, String fireKey, long epoch, String owner, @Nullable String traceId) {
        RunStart s = start(jobKey, fireKey, epoch, owner, traceId);
        if (s instanceof RunStart.Started started) {
            return new FireStart.Started(started.runId().toString());
        }
        if (s instanceof RunStart.AlreadyDone done) {
            return new FireStart.AlreadyDone(done.runId().toString(), done.owner(), done.epoch(), done.missed());
        }
        RunStart.InProgress other = (RunStart.InProgress) s;
        return new FireStart.InProgress(other.runId().toString(), other.owner(), other.epoch());
    }

    /** {@link #start(String, String, long, String, String)} without a trace id. */
    RunStart start(String jobKey, String fireKey, long epoch, String owner) {
        return start(jobKey, fireKey, epoch, owner, null);
    }

    /**
     * Fire idempotency: starts the run of ({@code jobKey}, {@code fireKey}) for the holder of {@code epoch}, in one
     * short transaction, and keeps its {@code traceId} (null: none) on its row. RUNNING runs of older epochs are marked
     * ABANDONED (their owners' leases ended). A fire that COMPLETED is reported, not started again; one that FAILED, was
     * ABANDONED or REJECTED_STALE is taken over by a new attempt (new run id, epoch and owner).
     *
     * @throws StaleOwnerException if {@code epoch} (of {@code owner}) is not the job's current, live epoch
     */
    RunStart start(String jobKey, String fireKey, long epoch, String owner, @Nullable String traceId) {
        return runs.start(key(jobKey), id("fireKey", fireKey), epoch(epoch), id("owner", owner), traceId(traceId));
    }

    /** The coordinator releases its lease handle right after: the handle, not this statement, ends the lease. */
    @Override
    public Finished finish(
            String jobKey, long epoch, String owner, String runId, boolean succeeded, @Nullable String error) {
        return finish(jobKey, epoch, owner, UUID.fromString(runId), outcome(succeeded), error);
    }

    /**
     * Like {@link #finishAndRelease(String, long, String, UUID, RunStatus, String)}, but the lease stays with its
     * holder, who then releases it ({@link JdbcLeaseStore#releaseEpoch}) or its lease handle. For holders whose lease
     * handle must see its own release, as the job coordinator's does.
     */
    Finished finish(String jobKey, long epoch, String owner, UUID runId, RunStatus outcome, @Nullable String error) {
        return finish(jobKey, epoch, owner, runId, outcome, error, true);
    }

    @Override
    public Finished finishAndRelease(
            String jobKey, long epoch, String owner, String runId, boolean succeeded, @Nullable String error) {
        return finishAndRelease(jobKey, epoch, owner, UUID.fromString(runId), outcome(succeeded), error);
    }

    /**
     * Records the run's outcome ({@link RunStatus#COMPLETED} or {@link RunStatus#FAILED}, with an optional error) and
     * clears the lease, in one statement, only where {@code epoch} of {@code owner} is still the job's; then wakes
     * waiters. A run that already COMPLETED in its own transaction ({@link #complete}) stays COMPLETED.
     *
     * <p>It waits for a row lock at most the claim lock timeout: the run row stays locked while a transaction that
     * completed the run has not ended (a completion joined to a caller's transaction that is still open, say).
     *
     * @return RECORDED; ALREADY_DONE; or STALE if fenced out (the run, if still RUNNING or ABANDONED by a
     *         successor, is marked REJECTED_STALE) or if the sweeper recorded the fire MISSED (the run stays MISSED and
     *         the lease is not cleared: release it)
     * @throws LedgerUnavailableException on faults; SQLSTATE 55P03 when a row lock outlasted the claim lock timeout
     *                                    (nothing changed)
     */
    Finished finishAndRelease(
            String jobKey, long epoch, String owner, UUID runId, RunStatus outcome, @Nullable String error) {
        return finish(jobKey, epoch, owner, runId, outcome, error, false);
    }

    private Finished finish(
            String jobKey,
            long epoch,
            String owner,
            UUID runId,
            RunStatus outcome,
            @Nullable String error,
            boolean keepLease) {
        Objects.requireNonNull(runId, "runId");
        if (outcome != RunStatus.COMPLETED && outcome != RunStatus.FAILED) {
            throw new IllegalArgumentException("outcome must be COMPLETED or FAILED (got " + outcome + ")");
        }
        return runs.finish(
                key(jobKey), epoch(epoch), id("owner", owner), runId, outcome, error, keepLease, claimLockTimeout);
    }

    private static RunStatus outcome(boolean succeeded) {
        return succeeded ? RunStatus.COMPLETED : RunStatus.FAILED;
    }

    /**
     * The fence check, inside the caller's open transaction on {@code connection}: locks the job's row FOR KEY SHARE
     * and compares the epoch and the owner. Call it in every transaction whose writes belong to the run, before they
     * commit (first is best). A newer claim waits for this lock, so those writes commit before the hand-over or not at
     * all; the holder's renewals do not wait for it, so any number of fenced transactions may overlap.
     *
     * <p>Works at every isolation level. At READ COMMITTED (the default) it checks the row it locked. At REPEATABLE
     * READ or SERIALIZABLE that row is the transaction's snapshot, older than any renewal committed since: the lock
     * covers the latest committed row as well, so the check reads that one on the ledger's own pool (one statement
     * more). If the job was claimed, handed over or force-released after the snapshot, or the transaction began before
     * this run's claim, it cannot be fenced: a {@link java.sql.SQLTransactionRollbackException} (SQLSTATE 40001) says
     * so; roll back and retry the transaction inside the run (a holder that lost the job is then refused as stale).
     *
     * @throws StaleOwnerException     if {@code epoch} is not current, not {@code owner}'s, or its lease has expired by
     *                                 the database clock: roll the transaction back
     * @throws IllegalStateException   if the connection is in autocommit mode (there is no transaction to protect)
     * @throws SQLException            as the caller's own statements would (the caller handles its transaction);
     *                                 SQLSTATE 40001 as above
     */
    @Override
    public void fence(Connection connection, String jobKey, long epoch, String owner) throws SQLException {
        fences.fence(Objects.requireNonNull(connection, "connection"), key(jobKey), epoch(epoch), id("owner", owner));
    }

    @Override
    public void complete(Connection connection, String jobKey, long epoch, String owner, String runId)
            throws SQLException {
        complete(connection, jobKey, epoch, owner, UUID.fromString(runId));
    }

    /**
     * The fence check and the completion of run {@code runId} (see {@link #start}), inside the caller's open
     * transaction: the run turns COMPLETED only under {@code epoch} of {@code owner}, and only if the caller commits,
     * together with its business writes. After that commit the fire is done for good: a later {@link #start} reports
     * it as completed, whatever happened to the lease, and {@link #finish} or {@link #finishAndRelease} keeps it. Every
     * isolation level works, as for {@link #fence}.
     *
     * @throws StaleOwnerException   as {@link #fence}, or if the sweeper recorded the fire MISSED (the run is no longer
     *                               the holder's): roll the transaction back
     * @throws IllegalStateException in autocommit mode, or if the run row is not {@code runId}'s RUNNING (or COMPLETED) row
     */
    void complete(Connection connection, String jobKey, long epoch, String owner, UUID runId) throws SQLException {
        fences.complete(
                Objects.requireNonNull(connection, "connection"),
                key(jobKey),
                epoch(epoch),
                id("owner", owner),
                Objects.requireNonNull(runId, "runId"));
    }

    @Override
    public boolean completeAndRelease(Connection connection, String jobKey, long epoch, String owner, String runId)
            throws SQLException {
        return completeAndRelease(connection, jobKey, epoch, owner, UUID.fromString(runId));
    }

    /**
     * {@link #complete} and the release of the lease of {@code epoch}, in one statement inside the caller's open
     * transaction, for a run whose work is that one transaction: after the caller's commit the fire is done and the job
     * free, and waiters are woken; if the caller rolls back, neither happened. Nothing of the run may follow the commit.
     *
     * <p>At REPEATABLE READ or SERIALIZABLE the job's row cannot be updated once a renewal committed after the
     * transaction's snapshot (Postgres refuses with 40001), so there this completes the run only, checked as
     * {@link #fence} is, and returns false: release the lease after the commit ({@link #finishAndRelease} does).
     *
     * @return true if the lease is released by the caller's commit; false if only the run is completed
     * @throws StaleOwnerException   as {@link #complete}: roll the transaction back
     * @throws IllegalStateException in autocommit mode, or if the run row is not {@code runId}'s RUNNING (or COMPLETED) row
     */
    boolean completeAndRelease(Connection connection, String jobKey, long epoch, String owner, UUID runId)
            throws SQLException {
        return fences.completeAndRelease(
                Objects.requireNonNull(connection, "connection"),
                key(jobKey),
                epoch(epoch),
                id("owner", owner),
                Objects.requireNonNull(runId, "runId"));
    }

    @Override
    public void recordTraceId(String jobKey, String runId, String traceId) {
        recordTraceId(jobKey, UUID.fromString(runId), traceId);
    }

    /** Keeps {@code traceId} on run {@code runId} of {@code jobKey}: one statement, outside any transaction of the run. */
    void recordTraceId(String jobKey, UUID runId, @Nullable String traceId) {
        runs.recordTraceId(key(jobKey), runId, traceId(traceId));
    }

    /** True: the claim and the fire's start are one statement, the outcome and the release another. */
    @Override
    public boolean claimsAndStarts() {
        return true;
    }

    /**
     * The fire's COMPLETED run ({@link #completedRun}), the claim ({@link JdbcLeaseStore#claim}) and {@link #start} in
     * one statement (one commit): nothing is claimed for a fire that already completed.
     */
    @Override
    public FireClaim claimAndStart(String jobKey, String fireKey, String owner, Duration ttl) {
        return claimAndStart(jobKey, fireKey, owner, ttl, null);
    }

    /** The trace id is written by the statement that claims and starts the run: no statement of its own. */
    @Override
    public FireClaim claimAndStart(
            String jobKey, String fireKey, String owner, Duration ttl, @Nullable String traceId) {
        return runs.claimAndStart(
                key(jobKey), id("fireKey", fireKey), id("owner", owner), ttl(ttl), claimLockTimeout, traceId(traceId));
    }

    /**
     * Ends run {@code runId} because its holder shuts down before it ended: clears the lease of {@code epoch} of
     * {@code owner} and turns the run ABANDONED with {@code reason} (e.g. "shutdown: ..."), in one statement, only where
     * that epoch is still {@code owner}'s; then wakes waiters. The next claim takes the fire over at once. A run that
     * completed in its own transaction stays COMPLETED; a completion not yet committed is waited for, up to the claim
     * lock timeout (then a {@link LedgerUnavailableException}, SQLSTATE 55P03, and nothing changed).
     *
     * @return RECORDED; ALREADY_DONE; or STALE if the epoch was no longer {@code owner}'s, or the sweeper recorded
     *         the fire MISSED (nothing changed)
     */
    @Override
    public Finished abandon(String jobKey, long epoch, String owner, String runId, String reason) {
        return abandon(jobKey, epoch, owner, UUID.fromString(runId), reason);
    }

    /** {@link #abandon(String, long, String, String, String)} of run {@code runId}. */
    Finished abandon(String jobKey, long epoch, String owner, UUID runId, String reason) {
        Objects.requireNonNull(runId, "runId");
        return runs.abandon(
                key(jobKey),
                epoch(epoch),
                id("owner", owner),
                runId,
                Objects.requireNonNull(reason, "reason"),
                claimLockTimeout);
    }

    /** The holder of a live database lease on {@code jobKey}, by the database clock. */
    @Override
    public Optional<Holder> holder(String jobKey) {
        return leases.holder(key(jobKey))
                .flatMap(h ->
                        Optional.ofNullable(h.owner()).map(owner -> new Holder(owner, h.epoch(), h.leaseExpiresAt())));
    }
}
