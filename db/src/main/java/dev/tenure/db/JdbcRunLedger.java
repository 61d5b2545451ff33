package dev.tenure.db;

import dev.tenure.Holder;
import dev.tenure.spi.RunLedger;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The job coordinator's {@link RunLedger} on the {@code job_run} and {@code job_execution} tables, through a
 * {@link JobLedger}. Thread-safe.
 */
public final class JdbcRunLedger implements RunLedger {

    private final JobLedger ledger;
    private final String ledgerId;

    /**
     * The run ledger on the rows (and schema) of {@code store}. Reads the ledger's id once (one statement).
     *
     * @throws dev.tenure.TenureException if the schema is older than version 7 or has no ledger id, saying what to do;
     *                                    a {@link LedgerUnavailableException} if the database cannot be read
     */
    public JdbcRunLedger(JdbcLeaseStore store) {
        this.ledger = Objects.requireNonNull(store, "store").ledger();
        this.ledgerId = ledger.readLedgerId();
    }

    /** The id in the schema's {@code tenure_ledger} table, as read when this ledger was made. */
    @Override
    public String ledgerId() {
        return ledgerId;
    }

    @Override
    public Optional<FireStart.AlreadyCompleted> completedRun(String jobKey, String fireKey) {
        return ledger.completedRun(jobKey, fireKey)
                .map(r -> new FireStart.AlreadyCompleted(
                        r.runId().toString(), r.owner(), r.epoch(), r.status() == RunStatus.MISSED));
    }

    @Override
    public FireStart startRun(String jobKey, String fireKey, long epoch, String owner) {
        return startRun(jobKey, fireKey, epoch, owner, null);
    }

    /** The trace id is written by the statement that starts the run. */
    @Override
    public FireStart startRun(String jobKey, String fireKey, long epoch, String owner, @Nullable String traceId) {
        RunStart s = ledger.startRun(jobKey, fireKey, epoch, owner, traceId);
        if (s instanceof RunStart.Started started) {
            return new FireStart.Started(started.runId().toString());
        }
        if (s instanceof RunStart.AlreadyCompleted done) {
            return new FireStart.AlreadyCompleted(done.runId().toString(), done.owner(), done.epoch(), done.missed());
        }
        RunStart.InProgress other = (RunStart.InProgress) s;
        return new FireStart.InProgress(other.runId().toString(), other.owner(), other.epoch());
    }

    @Override
    public Finished finish(
            String jobKey, long epoch, String owner, String runId, boolean succeeded, @Nullable String error) {
        // the coordinator releases its lease handle right after: the handle, not this statement, ends the lease
        return ledger.finish(
                jobKey,
                epoch,
                owner,
                UUID.fromString(runId),
                succeeded ? RunStatus.COMPLETED : RunStatus.FAILED,
                error);
    }

    @Override
    public void fence(Connection connection, String jobKey, long epoch, String owner) throws SQLException {
        ledger.fence(connection, jobKey, epoch, owner);
    }

    @Override
    public void complete(Connection connection, String jobKey, long epoch, String owner, String runId)
            throws SQLException {
        ledger.complete(connection, jobKey, epoch, owner, UUID.fromString(runId));
    }

    @Override
    public boolean completeAndRelease(Connection connection, String jobKey, long epoch, String owner, String runId)
            throws SQLException {
        return ledger.completeAndRelease(connection, jobKey, epoch, owner, UUID.fromString(runId));
    }

    @Override
    public void recordTraceId(String jobKey, String runId, String traceId) {
        ledger.recordTraceId(jobKey, UUID.fromString(runId), traceId);
    }

    /** True: the claim and the fire's start are one statement, the outcome and the release another. */
    @Override
    public boolean claimsAndStarts() {
        return true;
    }

    @Override
    public FireClaim claimAndStart(String jobKey, String fireKey, String owner, java.time.Duration ttl) {
        return claimAndStart(jobKey, fireKey, owner, ttl, null);
    }

    /** The trace id is written by the statement that claims and starts the run: no statement of its own. */
    @Override
    public FireClaim claimAndStart(
            String jobKey, String fireKey, String owner, java.time.Duration ttl, @Nullable String traceId) {
        return ledger.claimAndStart(jobKey, fireKey, owner, ttl, traceId);
    }

    @Override
    public Finished finishAndRelease(
            String jobKey, long epoch, String owner, String runId, boolean succeeded, @Nullable String error) {
        return ledger.finishAndRelease(
                jobKey,
                epoch,
                owner,
                UUID.fromString(runId),
                succeeded ? RunStatus.COMPLETED : RunStatus.FAILED,
                error);
    }

    /** ABANDONED with {@code reason} and the lease cleared, in one statement. */
    @Override
    public Finished abandon(String jobKey, long epoch, String owner, String runId, String reason) {
        return ledger.abandon(jobKey, epoch, owner, UUID.fromString(runId), reason);
    }

    /** The holder of a live database lease on {@code jobKey}, by the database clock. */
    @Override
    public Optional<Holder> holder(String jobKey) {
        return ledger.holder(jobKey)
                .flatMap(h ->
                        Optional.ofNullable(h.owner()).map(owner -> new Holder(owner, h.epoch(), h.leaseExpiresAt())));
    }
}
