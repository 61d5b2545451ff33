package dev.tenure.db;

import dev.tenure.DatabaseConfig;
import dev.tenure.StaleOwnerException;
import dev.tenure.spi.LeaseKeys;
import dev.tenure.spi.RunLedger.Finished;
import dev.tenure.spi.RunLedger.FireClaim;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The Postgres ledger of jobs: database leases with epochs ({@code job_execution}), fence checks inside the caller's
 * transactions, and one row per fire ({@code job_run}). Every operation is one statement or one short transaction,
 * and every time it compares comes from the database clock ({@code clock_timestamp()}); the application's clock is
 * never used.
 *
 * <pre>{@code
 * JobLedger ledger = JobLedger.create(dataSource);                 // schema "tenure", migrated beforehand
 * if (ledger.claim("settle", owner, ttl) instanceof ClaimResult.Claimed c) {
 *     RunStart start = ledger.startRun("settle", "2024-05-01T00:00Z", c.epoch(), owner);
 *     if (start instanceof RunStart.Started s) {
 *         try (Connection tx = dataSource.getConnection()) {       // the same database as Tenure's schema
 *             tx.setAutoCommit(false);
 *             ledger.fence(tx, "settle", c.epoch(), owner);       // throws StaleOwnerException: roll back
 *             ... business writes ...
 *             ledger.complete(tx, "settle", c.epoch(), owner, s.runId());   // the fire is done: same commit
 *             tx.commit();
 *         }
 *         ledger.release("settle", c.epoch(), owner);
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe; holds no resources of its own (the caller owns the data source). Faults are
 * {@link LedgerUnavailableException}s, raised within the pool's timeouts; a stale epoch is a
 * {@link StaleOwnerException}; bad arguments are {@link IllegalArgumentException}s naming the value and the rule.
 */
final class JobLedger {

    /** Longest accepted owner id or fire key, in characters. */
    public static final int MAX_ID_LENGTH = 200;

    private final String schema;
    private final Jdbc jdbc;
    private final String claimLockTimeout;
    private final LeaseRows leases;
    private final RunRows runs;
    private final FenceChecks fences;

    private JobLedger(Builder b) {
        this.schema = b.schema;
        DatabaseConfig knobs = b.knobs.build();
        this.claimLockTimeout =
                Long.toString(Math.max(1, knobs.claimLockTimeout().toMillis()));
        this.jdbc = new Jdbc(b.dataSource, knobs.queryTimeout());
        Sql sql = new Sql("\"" + b.schema + "\"");
        this.leases =
                new LeaseRows(jdbc, sql, b.schema, knobs.claimLockTimeout(), knobs.renewLockTimeout(), b.nodeName);
        this.runs = new RunRows(jdbc, sql, leases);
        this.fences = new FenceChecks(jdbc, sql, leases);
    }

    /** A ledger on schema {@value TenureSchema#DEFAULT_SCHEMA} with default timeouts. */
    public static JobLedger create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The schema holding the ledger's tables. */
    public String schema() {
        return schema;
    }

    /** The ledger's own id, read from the database: one statement each call (see {@link LedgerIds}). */
    public String readLedgerId() {
        return LedgerIds.read(jdbc, schema);
    }

    /**
     * Claims {@code jobKey} for {@code owner} for {@code ttl}: creates the row if missing, and bumps its epoch and sets
     * the lease only where no other owner's lease is live by the database clock (a live lease of the same owner is
     * claimed again with a new epoch). A claim waits for a current fence lock (up to the claim lock timeout), so a
     * holder's open fenced transaction finishes before the hand-over; if it stays open longer, the job counts as held.
     *
     * @return {@link ClaimResult.Claimed} with the new epoch, or {@link ClaimResult.Held} the current holder
     * @throws LedgerUnavailableException on faults; if {@link LedgerUnavailableException#outcomeUnknown()}, the row may
     *                                    name {@code owner} until its TTL: {@link #releaseIfOwner} clears it
     */
    public ClaimResult claim(String jobKey, String owner, Duration ttl) {
        return leases.claim(key(jobKey), id("owner", owner), ttl(ttl));
    }

    /**
     * Extends the lease of {@code epoch} (held by {@code owner}) to {@code ttl} from now (database clock), only if that
     * epoch is current, still {@code owner}'s, and its lease still live. {@code false} = fenced out or expired: the lease is lost and must be claimed again.
     *
     * <p>Fence checks do not hold it up (they lock the row FOR KEY SHARE, which a renewal's FOR NO KEY UPDATE does not
     * conflict with). If the row is locked by a claim or hand-off in progress, it gives up after the renew lock timeout
     * with a {@link LedgerUnavailableException} (SQLSTATE 55P03), to be retried.
     */
    public boolean renew(String jobKey, long epoch, String owner, Duration ttl) {
        return leases.renewEpoch(key(jobKey), epoch(epoch), id("owner", owner), ttl(ttl));
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
    public void fence(Connection connection, String jobKey, long epoch, String owner) throws SQLException {
        fences.fence(Objects.requireNonNull(connection, "connection"), key(jobKey), epoch(epoch), id("owner", owner));
    }

    /**
     * The fence check and the completion of run {@code runId} (see {@link #startRun}), inside the caller's open
     * transaction: the run turns COMPLETED only under {@code epoch} of {@code owner}, and only if the caller commits,
     * together with its business writes. After that commit the fire is done for good: a later {@link #startRun} reports
     * it as completed, whatever happened to the lease, and {@link #finish} or {@link #finishAndRelease} keeps it. Every
     * isolation level works, as for {@link #fence}.
     *
     * @throws StaleOwnerException   as {@link #fence}, or if the sweeper recorded the fire MISSED (the run is no longer
     *                               the holder's): roll the transaction back
     * @throws IllegalStateException in autocommit mode, or if the run row is not {@code runId}'s RUNNING (or COMPLETED) row
     */
    public void complete(Connection connection, String jobKey, long epoch, String owner, UUID runId)
            throws SQLException {
        fences.complete(
                Objects.requireNonNull(connection, "connection"),
                key(jobKey),
                epoch(epoch),
                id("owner", owner),
                Objects.requireNonNull(runId, "runId"));
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
    public boolean completeAndRelease(Connection connection, String jobKey, long epoch, String owner, UUID runId)
            throws SQLException {
        return fences.completeAndRelease(
                Objects.requireNonNull(connection, "connection"),
                key(jobKey),
                epoch(epoch),
                id("owner", owner),
                Objects.requireNonNull(runId, "runId"));
    }

    /**
     * Clears the lease of {@code epoch} (the epoch stays; the next claim bumps it) and wakes waiters with
     * {@code NOTIFY}. Call it after the run's transactions have committed, never before.
     *
     * @return the database time of the release, or empty if the epoch was no longer {@code owner}'s or already released
     */
    public Optional<Instant> release(String jobKey, long epoch, String owner) {
        return leases.releaseEpoch(key(jobKey), epoch(epoch), id("owner", owner));
    }

    /** Clears {@code owner}'s lease (after a claim whose outcome is unknown, say) and wakes waiters. True if it was theirs. */
    public boolean releaseIfOwner(String jobKey, String owner) {
        return leases.releaseOwner(key(jobKey), id("owner", owner)).isPresent();
    }

    /**
     * Fire idempotency: starts the run of ({@code jobKey}, {@code fireKey}) for the holder of {@code epoch}, in one
     * short transaction. RUNNING runs of older epochs are marked ABANDONED (their owners' leases ended). A fire that
     * COMPLETED is reported, not started again; one that FAILED, was ABANDONED or REJECTED_STALE is taken over by a
     * new attempt (new run id, epoch and owner).
     *
     * @throws StaleOwnerException if {@code epoch} (of {@code owner}) is not the job's current, live epoch
     */
    public RunStart startRun(String jobKey, String fireKey, long epoch, String owner) {
        return startRun(jobKey, fireKey, epoch, owner, null);
    }

    /** {@link #startRun(String, String, long, String)} that keeps the run's {@code traceId} (null: none) on its row. */
    public RunStart startRun(String jobKey, String fireKey, long epoch, String owner, @Nullable String traceId) {
        return runs.start(key(jobKey), id("fireKey", fireKey), epoch(epoch), id("owner", owner), traceId(traceId));
    }

    /**
     * Records the run's outcome ({@link RunStatus#COMPLETED} or {@link RunStatus#FAILED}, with an optional error) and
     * clears the lease, in one statement, only where {@code epoch} of {@code owner} is still the job's; then wakes
     * waiters. A run that already COMPLETED in its own transaction ({@link #complete}) stays COMPLETED.
     *
     * <p>It waits for a row lock at most the claim lock timeout: the run row stays locked while a transaction that
     * completed the run has not ended (a completion joined to a caller's transaction that is still open, say).
     *
     * @return RECORDED; COMPLETED_EARLIER; or STALE if fenced out (the run, if still RUNNING or ABANDONED by a
     *         successor, is marked REJECTED_STALE) or if the sweeper recorded the fire MISSED (the run stays MISSED and
     *         the lease is not cleared: release it)
     * @throws LedgerUnavailableException on faults; SQLSTATE 55P03 when a row lock outlasted the claim lock timeout
     *                                    (nothing changed)
     */
    public Finished finishAndRelease(
            String jobKey, long epoch, String owner, UUID runId, RunStatus outcome, @Nullable String error) {
        return finish(jobKey, epoch, owner, runId, outcome, error, false);
    }

    /**
     * Like {@link #finishAndRelease}, but the lease stays with its holder, who then releases it with {@link #release}
     * or its lease handle. For holders whose lease handle must see its own release, as the job coordinator's does.
     */
    public Finished finish(
            String jobKey, long epoch, String owner, UUID runId, RunStatus outcome, @Nullable String error) {
        return finish(jobKey, epoch, owner, runId, outcome, error, true);
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

    /**
     * Ends run {@code runId} because its holder shuts down before it ended: clears the lease of {@code epoch} of
     * {@code owner} and turns the run ABANDONED with {@code reason} (e.g. "shutdown: ..."), in one statement, only where
     * that epoch is still {@code owner}'s; then wakes waiters. The next claim takes the fire over at once. A run that
     * completed in its own transaction stays COMPLETED; a completion not yet committed is waited for, up to the claim
     * lock timeout (then a {@link LedgerUnavailableException}, SQLSTATE 55P03, and nothing changed).
     *
     * @return RECORDED; COMPLETED_EARLIER; or STALE if the epoch was no longer {@code owner}'s, or the sweeper recorded
     *         the fire MISSED (nothing changed)
     */
    public Finished abandon(String jobKey, long epoch, String owner, UUID runId, String reason) {
        Objects.requireNonNull(runId, "runId");
        return runs.abandon(
                key(jobKey),
                epoch(epoch),
                id("owner", owner),
                runId,
                Objects.requireNonNull(reason, "reason"),
                claimLockTimeout);
    }

    /**
     * {@link #completedRun}, {@link #claim} and {@link #startRun} in one statement (one commit): nothing is claimed for a
     * fire that already completed.
     */
    FireClaim claimAndStart(String jobKey, String fireKey, String owner, Duration ttl) {
        return claimAndStart(jobKey, fireKey, owner, ttl, null);
    }

    /** {@link #claimAndStart(String, String, String, Duration)} that keeps the run's {@code traceId} (null: none). */
    FireClaim claimAndStart(String jobKey, String fireKey, String owner, Duration ttl, @Nullable String traceId) {
        return runs.claimAndStart(
                key(jobKey), id("fireKey", fireKey), id("owner", owner), ttl(ttl), claimLockTimeout, traceId(traceId));
    }

    /** Keeps {@code traceId} on run {@code runId} of {@code jobKey}: one statement, outside any transaction of the run. */
    public void recordTraceId(String jobKey, UUID runId, @Nullable String traceId) {
        runs.recordTraceId(key(jobKey), runId, traceId(traceId));
    }

    /** A trace id as kept: null for none, or for one longer than 64 characters (no tracer makes such ids). */
    private static @Nullable String traceId(@Nullable String traceId) {
        return traceId == null || traceId.length() > 64 ? null : traceId;
    }

    /** The fire's COMPLETED run, if any: a read without locks (a completed fire is final). */
    public Optional<RunRecord> completedRun(String jobKey, String fireKey) {
        return runs.completedRun(key(jobKey), id("fireKey", fireKey));
    }

    /** The run row of ({@code jobKey}, {@code fireKey}), if any; a read without locks. */
    public Optional<RunRecord> runOf(String jobKey, String fireKey) {
        return runs.runOf(key(jobKey), id("fireKey", fireKey));
    }

    /** Who holds {@code jobKey} now by the database clock; empty if nobody's lease is live. */
    public Optional<JobHolder> holder(String jobKey) {
        return leases.read(key(jobKey))
                .filter(h -> h.owner() != null && h.remaining().compareTo(Duration.ZERO) > 0);
    }

    LeaseRows leaseRows() {
        return leases;
    }

    static String key(String jobKey) {
        return LeaseKeys.validate(jobKey);
    }

    static String id(String what, String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException(what + " must have 1 to " + MAX_ID_LENGTH + " characters (got "
                    + (value == null
                            ? "null"
                            : value.length() + ": '" + value.substring(0, Math.min(32, value.length())) + "'")
                    + ")");
        }
        return value;
    }

    static long epoch(long epoch) {
        if (epoch < 1) {
            throw new IllegalArgumentException("epoch must be >= 1 (got " + epoch + "); epochs come from claim()");
        }
        return epoch;
    }

    static Duration ttl(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.toMillis() < 10) {
            throw new IllegalArgumentException("ttl must be at least 10 ms (got " + ttl + ")");
        }
        return ttl;
    }

    /** Configuration of a {@link JobLedger}. Not thread-safe; build once. */
    public static final class Builder {
        /** Default wait of a claim for a holder's fence lock. */
        public static final Duration DEFAULT_CLAIM_LOCK_TIMEOUT = DatabaseConfig.DEFAULT_CLAIM_LOCK_TIMEOUT;
        /** Default wait of a renewal for a row lock (its own holder's fenced transaction). */
        public static final Duration DEFAULT_RENEW_LOCK_TIMEOUT = DatabaseConfig.DEFAULT_RENEW_LOCK_TIMEOUT;
        /** Default client-side backstop per statement. */
        public static final Duration DEFAULT_QUERY_TIMEOUT = DatabaseConfig.DEFAULT_QUERY_TIMEOUT;

        private final DataSource dataSource;
        private String schema = TenureSchema.DEFAULT_SCHEMA;
        /** The lock waits and the query timeout, checked by {@link DatabaseConfig}'s rules. */
        private final DatabaseConfig.Builder knobs = DatabaseConfig.builder();

        private @Nullable String nodeName;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * The node name written next to the owner id on every claim and run ({@link dev.tenure.integration.NodeName}; default none:
         * readers then show the owner id).
         */
        public Builder nodeName(String name) {
            this.nodeName = dev.tenure.integration.NodeName.check(name);
            return this;
        }

        /** The schema holding Tenure's tables (default {@value TenureSchema#DEFAULT_SCHEMA}). */
        public Builder schema(String schema) {
            this.schema = TenureSchema.checkName(schema);
            return this;
        }

        /**
         * How long a claim waits for a row lock held by an open fenced transaction before it ends that transaction (if the
         * lease has expired and the transaction sits idle: its holder is frozen) and claims again, or reports the job as
         * held (default 2 s). {@link JobLedger#finish} and {@link JobLedger#finishAndRelease} wait as long for a row
         * lock before they fail with SQLSTATE 55P03. The pool's statement timeout still applies on top.
         */
        public Builder claimLockTimeout(Duration timeout) {
            knobs.claimLockTimeout(timeout);
            return this;
        }

        /**
         * How long a renewal waits for a row lock (in practice: its own holder's open fenced transaction) before failing
         * with SQLSTATE 55P03, to be retried (default 250 ms). Keeps the watchdog from stalling.
         */
        public Builder renewLockTimeout(Duration timeout) {
            knobs.renewLockTimeout(timeout);
            return this;
        }

        /**
         * Client-side query timeout per statement, a backstop for data sources without a server-side
         * {@code statement_timeout} (default 5 s, rounded up to whole seconds; zero = none).
         */
        public Builder queryTimeout(Duration timeout) {
            knobs.queryTimeout(timeout);
            return this;
        }

        public JobLedger build() {
            return new JobLedger(this);
        }
    }
}
