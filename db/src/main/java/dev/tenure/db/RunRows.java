package dev.tenure.db;

import dev.tenure.spi.RunLedger.Finished;
import dev.tenure.spi.RunLedger.FireClaim;
import dev.tenure.spi.RunLedger.FireStart;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** The run operations on {@code job_run}: fire idempotency, start and finish. Thread-safe. */
final class RunRows {

    private final Jdbc jdbc;
    private final Sql sql;
    private final LeaseRows leases;

    public RunRows(Jdbc jdbc, Sql sql, LeaseRows leases) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.leases = leases;
    }

    /** Keeps the run's trace id on its row (a statement of its own, committed). */
    void recordTraceId(String key, UUID runId, @Nullable String traceId) {
        jdbc.run("record trace id", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.recordTraceId)) {
                ps.setString(1, traceId);
                ps.setObject(2, runId);
                ps.setString(3, key);
                return ps.executeUpdate();
            }
        });
    }

    /**
     * One short transaction: lock the job row and check that {@code epoch} (of {@code owner}) is current and live;
     * mark RUNNING runs of older epochs ABANDONED (their owners lost the lease); insert the run, or take over the
     * fire's FAILED, ABANDONED or REJECTED_STALE row; if the fire already COMPLETED (or was recorded MISSED) or runs
     * under this epoch, say so.
     */
    public RunStart start(String key, String fireKey, long epoch, String owner, @Nullable String traceId) {
        return jdbc.inTransaction("start run", key, c -> {
            checkHolder(c, key, epoch, owner);
            try (PreparedStatement ps = jdbc.prepare(c, sql.abandonOlderRuns)) {
                ps.setString(1, key);
                ps.setLong(2, epoch);
                ps.executeUpdate();
            }
            UUID runId = UUID.randomUUID();
            try (PreparedStatement ps = jdbc.prepare(c, sql.upsertRun)) {
                ps.setObject(1, runId);
                ps.setString(2, key);
                ps.setString(3, fireKey);
                ps.setLong(4, epoch);
                ps.setString(5, owner);
                ps.setString(6, leases.node());
                ps.setString(7, traceId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        String previous = rs.getString(2);
                        markRunning(c, key, epoch, runId);
                        return new RunStart.Started(
                                runId, rs.getInt(1), previous == null ? null : RunStatus.valueOf(previous));
                    }
                }
            }
            RunRecord existing = find(c, key, fireKey)
                    .orElseThrow(() -> new IllegalStateException(
                            "job_run row of '" + key + "' / '" + fireKey + "' vanished inside the transaction"));
            if (existing.status() == RunStatus.COMPLETED || existing.status() == RunStatus.MISSED) {
                return new RunStart.AlreadyDone(
                        existing.runId(),
                        existing.owner(),
                        existing.epoch(),
                        existing.finishedAt(),
                        existing.status() == RunStatus.MISSED);
            }
            return new RunStart.InProgress(existing.runId(), existing.owner(), existing.epoch(), existing.startedAt());
        });
    }

    private void checkHolder(Connection c, String key, long epoch, String owner) throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, sql.lockForRun)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                FenceChecks.checkHolder(rs, key, epoch, owner);
            }
        }
    }

    private void markRunning(Connection c, String key, long epoch, UUID runId) throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, sql.markRunning)) {
            ps.setObject(1, runId);
            ps.setString(2, key);
            ps.setLong(3, epoch);
            ps.executeUpdate();
        }
    }

    /**
     * Records {@code outcome} of the run and clears the lease (unless {@code keepLease}: then its holder releases it
     * next), in one statement, only if {@code epoch} of {@code owner} is still the job's and the run is still theirs;
     * otherwise marks the run REJECTED_STALE (if it is still RUNNING) and changes nothing else. The run row decides what
     * is reported: a run that COMPLETED in its own transaction stays COMPLETED whatever the epoch is now
     * (ALREADY_DONE); a run the sweeper recorded MISSED stays MISSED, and so does the lease (STALE). A row lock held
     * longer than {@code lockTimeout} (milliseconds) fails it with SQLSTATE 55P03, nothing changed.
     */
    public Finished finish(
            String key,
            long epoch,
            String owner,
            UUID runId,
            RunStatus outcome,
            @Nullable String error,
            boolean keepLease,
            String lockTimeout) {
        Optional<Finished> f = jdbc.run("finish", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, keepLease ? sql.finish : sql.finishAndRelease)) {
                ps.setString(1, lockTimeout);
                ps.setObject(2, runId);
                ps.setString(3, key);
                ps.setLong(4, epoch);
                ps.setString(5, owner);
                ps.setString(6, outcome.name());
                ps.setString(7, error);
                ps.setObject(8, runId);
                ps.setString(9, key);
                ps.setLong(10, epoch);
                if (!keepLease) {
                    leases.bindNotify(ps, 11, key);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    String before = rs.getString(3);
                    if ("COMPLETED".equals(before)) {
                        return Optional.of(Finished.ALREADY_DONE);
                    }
                    if (rs.getString(2) != null) {
                        return Optional.of(rs.getLong(1) > 0 ? Finished.RECORDED : Finished.STALE);
                    }
                    // nothing recorded: a RUNNING run changed while the statement waited for its lock (read it again),
                    // or the run is not the holder's (MISSED, taken over, gone)
                    return "RUNNING".equals(before) ? Optional.<Finished>empty() : Optional.of(Finished.STALE);
                }
            }
        });
        return f.orElseGet(() -> completedOrStale(key, runId));
    }

    /**
     * Ends a run cut short by its holder's shutdown, in one statement: clears the lease and turns the run ABANDONED with
     * {@code reason}, only if {@code epoch} of {@code owner} is still the job's and the run still theirs. RECORDED;
     * ALREADY_DONE if the run had completed in its own transaction (the lease is cleared all the same); STALE if the
     * epoch was no longer theirs, or the run was recorded MISSED (then the lease is left to its holder's release).
     */
    public Finished abandon(String key, long epoch, String owner, UUID runId, String reason, String lockTimeout) {
        Optional<Finished> f = jdbc.run("abandon", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.abandon)) {
                ps.setString(1, lockTimeout);
                ps.setObject(2, runId);
                ps.setString(3, key);
                ps.setLong(4, epoch);
                ps.setString(5, owner);
                ps.setString(6, reason);
                ps.setObject(7, runId);
                ps.setString(8, key);
                ps.setLong(9, epoch);
                leases.bindNotify(ps, 10, key);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(2) > 0) {
                        return Optional.of(Finished.RECORDED);
                    }
                    return "COMPLETED".equals(rs.getString(3))
                            ? Optional.of(Finished.ALREADY_DONE)
                            : Optional.<Finished>empty();
                }
            }
        });
        // not abandoned: the run may have completed (and released) in its own transaction meanwhile: a new read
        return f.orElseGet(() -> completedOrStale(key, runId));
    }

    /** ALREADY_DONE if run {@code runId} is COMPLETED now (a read of its own, after the statement); else STALE. */
    private Finished completedOrStale(String key, UUID runId) {
        return jdbc.run("read run", key, false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.runStatus)) {
                ps.setObject(1, runId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && "COMPLETED".equals(rs.getString(1)) ? Finished.ALREADY_DONE : Finished.STALE;
                }
            }
        });
    }

    /**
     * The fire's completion read, the claim for {@code owner} and the fire's start, in one statement (see
     * {@link Sql#claimAndStart}). A first claim of a job inserts its row first; a row locked by an open fenced transaction
     * longer than the claim lock timeout counts as held, unless the lease has expired and that transaction sits idle
     * (its holder frozen): then it is ended and the claim made again ({@link StaleFences}); a fire completed while the
     * claim waited for that lock is released again and reported done.
     */
    public FireClaim claimAndStart(
            String key, String fireKey, String owner, Duration ttl, String lockTimeout, @Nullable String traceId) {
        boolean quick = true;
        for (int attempt = 0; attempt < 3; attempt++) {
            UUID runId = UUID.randomUUID();
            Object r;
            String wait = quick ? LeaseRows.quickLockTimeout(lockTimeout) : lockTimeout;
            try {
                r = jdbc.run(
                        "claim and start",
                        key,
                        true,
                        c -> claimAndStartOnce(c, key, fireKey, owner, ttl, wait, runId, traceId));
            } catch (LedgerUnavailableException e) {
                if (!Faults.LOCK_TIMEOUT.equals(e.sqlState())) {
                    throw e;
                }
                if (attempt < 2 && (leases.endStaleFences(key) || quick)) {
                    quick = false;
                    continue; // a frozen holder's transaction ended, or a live one gets the full wait to commit
                }
                return leases.read(key)
                        .<FireClaim>map(h -> new FireClaim.Held(h.owner(), h.epoch(), Duration.ZERO))
                        .orElseGet(() -> new FireClaim.Held(null, 0, Duration.ZERO));
            }
            if (r instanceof FireClaim.Started || r instanceof FireStart.AlreadyDone) {
                return (FireClaim) r;
            }
            if (r instanceof FireClaim.Held h
                    && h.owner() != null
                    && h.remaining().compareTo(Duration.ZERO) > 0) {
                return h;
            }
            if (r instanceof Long claimedEpoch) {
                // the fire completed while the claim waited for the row lock: give the claim back, report the fire done
                leases.releaseEpoch(key, claimedEpoch, owner);
                Optional<RunRecord> done = completedRun(key, fireKey);
                if (done.isPresent()) {
                    RunRecord d = done.get();
                    return new FireStart.AlreadyDone(
                            d.runId().toString(), d.owner(), d.epoch(), d.status() == RunStatus.MISSED);
                }
                continue;
            }
            if (r == NO_ROW) {
                jdbc.run("insert job", key, true, c -> {
                    try (PreparedStatement ps = jdbc.prepare(c, sql.insertIdle)) {
                        ps.setString(1, key);
                        return ps.executeUpdate();
                    }
                });
            }
            // no row yet, or the holder's lease ended between the statement's snapshot and its lock: again
        }
        return leases.read(key)
                .<FireClaim>map(h -> new FireClaim.Held(h.owner(), h.epoch(), h.remaining()))
                .orElseGet(() -> new FireClaim.Held(null, 0, Duration.ZERO));
    }

    /** What {@link #claimAndStartOnce} answers when the job has no row yet. */
    private static final Object NO_ROW = new Object();

    /**
     * Started, Done or Held; the claimed epoch (a Long) when the fire completed meanwhile; {@link #NO_ROW} when the job
     * has no row.
     */
    private Object claimAndStartOnce(
            Connection c,
            String key,
            String fireKey,
            String owner,
            Duration ttl,
            String lockTimeout,
            UUID runId,
            @Nullable String traceId)
            throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, sql.claimAndStart)) {
            int i = 1;
            ps.setString(i++, lockTimeout);
            ps.setString(i++, key);
            ps.setString(i++, fireKey);
            ps.setString(i++, key);
            ps.setString(i++, owner);
            ps.setString(i++, owner);
            ps.setString(i++, leases.node());
            ps.setString(i++, runId.toString());
            ps.setLong(i++, ttl.toMillis());
            ps.setString(i++, key);
            ps.setString(i++, fireKey);
            ps.setString(i++, runId.toString());
            ps.setString(i++, key);
            ps.setString(i++, fireKey);
            ps.setString(i++, owner);
            ps.setString(i++, leases.node());
            ps.setString(i++, traceId);
            ps.setString(i, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return NO_ROW;
                }
                String kind = rs.getString(1);
                long epoch = rs.getLong(2);
                Duration remaining = Jdbc.between(Rows.instant(rs, 6), Rows.instant(rs, 5));
                if (kind.equals("done") || kind.equals("missed")) {
                    return new FireStart.AlreadyDone(rs.getString(4), rs.getString(3), epoch, kind.equals("missed"));
                }
                if (kind.equals("held")) {
                    return new FireClaim.Held(rs.getString(3), epoch, remaining);
                }
                if (rs.getObject(7) == null) {
                    return epoch; // claimed, but the fire completed meanwhile
                }
                return new FireClaim.Started(epoch, runId.toString(), remaining);
            }
        }
    }

    /** The COMPLETED (or MISSED) run of the fire, if any: a read without locks (a completed or missed fire is final). */
    public Optional<RunRecord> completedRun(String key, String fireKey) {
        return runOf(key, fireKey).filter(r -> r.status() == RunStatus.COMPLETED || r.status() == RunStatus.MISSED);
    }

    public Optional<RunRecord> runOf(String key, String fireKey) {
        return jdbc.run("read run", key, false, c -> find(c, key, fireKey));
    }

    private Optional<RunRecord> find(Connection c, String key, String fireKey) throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, sql.runOf)) {
            ps.setString(1, key);
            ps.setString(2, fireKey);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new RunRecord(
                        rs.getObject(1, UUID.class),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getLong(4),
                        rs.getString(5),
                        RunStatus.valueOf(rs.getString(6)),
                        rs.getInt(7),
                        Rows.at(rs, 8),
                        Rows.instant(rs, 9),
                        rs.getString(10)));
            }
        }
    }
}
