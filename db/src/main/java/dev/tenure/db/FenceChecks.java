package dev.tenure.db;

import dev.tenure.StaleOwnerException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.Optional;
import java.util.UUID;

/**
 * The fence check and the completion of a run, inside the caller's transaction: the job's row locked, the holder
 * checked, the run completed (and the lease released) under that check. Errors are SQL errors of the caller's own
 * transaction, or a {@link StaleOwnerException}: the caller rolls back. Thread-safe.
 *
 * <p><b>Isolation levels.</b> At READ COMMITTED each statement reads the latest committed row, and the check is made on
 * the row the statement locked. At REPEATABLE READ and SERIALIZABLE the statement reads the transaction's snapshot,
 * which may predate renewals committed since (a live, renewed holder would look expired). There the row is locked FOR
 * KEY SHARE, a lock that also covers every newer version of the row (so no claim can change it until the transaction
 * ends) and that a renewal does not conflict with; then the latest committed row is read on the ledger's own pool and
 * checked. A row claimed, handed over or force-released after the snapshot cannot be locked (Postgres raises 40001), and
 * a snapshot older than the run's claim cannot see the run: both are {@link SQLTransactionRollbackException}s (SQLSTATE
 * 40001) that say what to do.
 */
final class FenceChecks {

    private static final String SERIALIZATION_FAILURE = "40001";

    private final Jdbc jdbc;
    private final Sql sql;
    private final LeaseRows leases;

    FenceChecks(Jdbc jdbc, Sql sql, LeaseRows leases) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.leases = leases;
    }

    /**
     * Locks the row FOR KEY SHARE in the caller's transaction and checks that {@code epoch} of {@code owner} is current
     * and its lease live by the database clock. A claim (FOR UPDATE) waits for this lock, so the caller's writes commit
     * before any hand-over or not at all; renewals (FOR NO KEY UPDATE) do not. The transaction is tagged as a fenced
     * one of {@code key} ({@link StaleFences}), so that a claim it holds up once the lease has expired can end it.
     */
    void fence(Connection c, String key, long epoch, String owner) throws SQLException {
        requireTransaction(c, "fence", key);
        try (PreparedStatement ps = jdbc.prepare(c, sql.fence)) {
            ps.setLong(1, leases.fenceTag(key));
            ps.setString(2, key);
            try (ResultSet rs = query(ps, key)) {
                rs.next();
                checkLocked(rs, 5, key, epoch, owner);
            }
        }
    }

    /**
     * The fence check and the completion of run {@code runId} in one statement: the run's row is written COMPLETED
     * only if {@code epoch} of {@code owner} is current and live and the job row still carries the run; the caller's
     * commit makes it durable together with its business writes. Completing a run twice is harmless.
     *
     * @throws StaleOwnerException   if the epoch is stale (roll back)
     * @throws IllegalStateException if the run is neither running on the job row nor COMPLETED
     */
    void complete(Connection c, String key, long epoch, String owner, UUID runId) throws SQLException {
        completion(c, "complete", false, key, epoch, owner, runId);
    }

    /**
     * {@link #complete} and the release of the lease in one statement, for a run that is that one transaction: nothing of
     * the run may follow its commit. At READ COMMITTED the row is locked (FOR NO KEY UPDATE) before the check, so a claim
     * waits for the caller's commit; the lease is cleared only under the check, and waiters are notified when the
     * caller commits. At REPEATABLE READ or SERIALIZABLE only the run is completed (see {@link Sql}'s completion).
     *
     * @return true if the caller's commit releases the lease; false if it only completes the run (release it after)
     */
    boolean completeAndRelease(Connection c, String key, long epoch, String owner, UUID runId) throws SQLException {
        return completion(c, "completeAndRelease", true, key, epoch, owner, runId);
    }

    /**
     * {@link Sql#complete}, or with {@code release} {@link Sql#completeAndRelease}: bound, run and checked; the
     * transaction is tagged as {@link #fence} tags it.
     */
    private boolean completion(
            Connection c, String op, boolean release, String key, long epoch, String owner, UUID runId)
            throws SQLException {
        requireTransaction(c, op, key);
        try (PreparedStatement ps = jdbc.prepare(c, release ? sql.completeAndRelease : sql.complete)) {
            int i = 1;
            ps.setLong(i++, leases.fenceTag(key));
            ps.setString(i++, key);
            if (release) {
                ps.setString(i++, key);
            }
            ps.setLong(i++, epoch);
            ps.setString(i++, owner);
            ps.setObject(i++, runId);
            if (release) {
                ps.setString(i++, key);
                ps.setLong(i++, epoch);
                ps.setString(i++, owner);
            }
            ps.setObject(i++, runId);
            ps.setObject(i++, runId);
            if (release) {
                leases.bindNotify(ps, i, key);
            }
            try (ResultSet rs = query(ps, key)) {
                rs.next();
                boolean readCommitted = checkLocked(rs, 7, key, epoch, owner);
                String before = rs.getString(6);
                if (rs.getLong(5) == 0 && !"COMPLETED".equals(before)) {
                    refuseIfMissed(c, key, epoch, owner, runId, before);
                    throw new IllegalStateException("run " + runId + " of job '" + key
                            + "' cannot complete: its row is " + (before == null ? "missing" : before)
                            + " (complete only the run this context belongs to)");
                }
                if (release && readCommitted && rs.getLong(8) != 1) {
                    throw new IllegalStateException("the lease of job '" + key + "' (epoch " + epoch + ") passed the "
                            + "check but was not cleared");
                }
                return release && readCommitted;
            }
        }
    }

    /**
     * A completion that found its run not RUNNING ({@code before}, as the statement's snapshot had it): if the sweeper
     * recorded the fire MISSED (its row MISSED, or replaced by the MISSED record), the run is no longer the holder's even
     * though the job's row still names them, and the holder is refused as a stale owner, so the caller rolls back. A
     * row RUNNING in the snapshot or missing from it is read again (at READ COMMITTED, the latest committed one).
     */
    private void refuseIfMissed(Connection c, String key, long epoch, String owner, UUID runId, String before)
            throws SQLException {
        String now = before;
        if (before == null || "RUNNING".equals(before)) {
            try (PreparedStatement ps = jdbc.prepare(c, sql.runOrMissed)) {
                ps.setObject(1, runId);
                ps.setString(2, key);
                ps.setObject(3, runId);
                try (ResultSet rs = query(ps, key)) {
                    now = rs.next() ? rs.getString(1) : null;
                }
            }
        }
        if ("MISSED".equals(now)) {
            throw new StaleOwnerException(
                    key,
                    epoch,
                    owner,
                    "the sweeper recorded its fire MISSED (run " + runId + "): the fire is no longer this run's to "
                            + "complete");
        }
    }

    /**
     * Checks the locked row (columns 1-4, null when the snapshot has no row) of a statement whose column
     * {@code readCommittedColumn} tells the isolation; at REPEATABLE READ or SERIALIZABLE checks the latest committed
     * row instead, and refuses a snapshot that predates the claim. Returns whether the transaction is READ COMMITTED.
     */
    private boolean checkLocked(ResultSet rs, int readCommittedColumn, String key, long epoch, String owner)
            throws SQLException {
        if (rs.getBoolean(readCommittedColumn)) {
            checkRow(rs, key, epoch, owner);
            return true;
        }
        Optional<JobHolder> latest = leases.read(key);
        JobHolder h = latest.orElse(null);
        if (h == null
                || h.epoch() != epoch
                || !owner.equals(h.owner())
                || h.remaining().isZero()) {
            throw new StaleOwnerException(
                    key,
                    epoch,
                    owner,
                    h == null ? 0 : h.epoch(),
                    h == null ? null : h.owner(),
                    h == null ? null : h.leaseExpiresAt());
        }
        if (rs.getObject(1) == null || rs.getLong(1) != epoch || !owner.equals(rs.getString(2))) {
            throw new SQLTransactionRollbackException(
                    "job '" + key + "': this transaction's snapshot is older than "
                            + "the run's claim (epoch " + epoch + "), so it cannot see the run. At REPEATABLE READ or "
                            + "SERIALIZABLE, roll back and begin the transaction inside the run, after its claim",
                    SERIALIZATION_FAILURE);
        }
        return false;
    }

    /** Runs the statement; a serialization failure comes back saying what it means here and what to do. */
    private static ResultSet query(PreparedStatement ps, String key) throws SQLException {
        try {
            return ps.executeQuery();
        } catch (SQLException e) {
            if (!SERIALIZATION_FAILURE.equals(e.getSQLState())) {
                throw e;
            }
            throw new SQLTransactionRollbackException(
                    "job '" + key + "' cannot be fenced in this transaction: its row "
                            + "(or its run's) changed after the transaction's snapshot was taken (another owner claimed the job, "
                            + "an operator released it, or the transaction began before this run's claim). Roll back; to retry, "
                            + "begin the transaction again inside the run (a holder that lost the job is then refused as stale). "
                            + e.getMessage(),
                    SERIALIZATION_FAILURE,
                    e);
        }
    }

    /**
     * Reads the holder columns (epoch, owner, expiry, live) of the fence, completion or start-of-run row, and throws
     * unless they name the live lease of {@code epoch} of {@code owner}.
     */
    static void checkHolder(ResultSet rs, String key, long epoch, String owner) throws SQLException {
        if (!rs.next()) {
            throw new StaleOwnerException(key, epoch, owner, 0, null, null);
        }
        checkRow(rs, key, epoch, owner);
    }

    private static void checkRow(ResultSet rs, String key, long epoch, String owner) throws SQLException {
        if (rs.getObject(1) == null) {
            throw new StaleOwnerException(key, epoch, owner, 0, null, null);
        }
        long current = rs.getLong(1);
        String currentOwner = rs.getString(2);
        if (current != epoch || !owner.equals(currentOwner) || !rs.getBoolean(4)) {
            throw new StaleOwnerException(key, epoch, owner, current, currentOwner, Rows.instant(rs, 3));
        }
    }

    private static void requireTransaction(Connection c, String op, String key) throws SQLException {
        if (c.getAutoCommit()) {
            throw new IllegalStateException(op + "(" + key + ") needs a transaction (autocommit is on): the row lock "
                    + "would end with the statement and protect nothing");
        }
    }
}
