package dev.tenure.db;

import dev.tenure.spi.RunLedger.Finished;
import dev.tenure.spi.RunLedger.FireClaim;
import dev.tenure.spi.RunLedger.FireStart;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** The run operations on {@code job_run}: fire idempotency, start and finish. Thread-safe. */
final class RunRows {

    /** One claim of {@link #claimAndStart}, as {@link ClaimGroups} carries it. */
    record Claim(
            String key,
            String fireKey,
            String owner,
            Duration ttl,
            String lockTimeout,
            UUID runId,
            @Nullable String traceId) {}

    private final Jdbc jdbc;
    private final Sql sql;
    private final LeaseRows leases;
    private final ClaimGroups<Claim> groups;

    /** {@code claimsInFlight} claim statements at once, each carrying at most {@code claimsPerStatement} claims. */
    RunRows(Jdbc jdbc, Sql sql, LeaseRows leases, int claimsInFlight, int claimsPerStatement) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.leases = leases;
        this.groups = new ClaimGroups<>(claimsInFlight, claimsPerStatement, Claim::key, this::sendGroup);
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
     * One short transaction: lock the job row and check that {@code epoch} (of {@code owner}) is current and live; if
     * the fire already COMPLETED (or was recorded MISSED), or runs under this epoch, say so; else start it on the job row
     * (a run the row still carried is written ABANDONED first). No run row is written: the run's row is written once,
     * at its end, taking over the fire's FAILED, ABANDONED or REJECTED_STALE row if it has one.
     */
    public RunStart start(String key, String fireKey, long epoch, String owner, @Nullable String traceId) {
        return jdbc.inTransaction("start run", key, c -> {
            String runningFire;
            Object runningId;
            java.time.@Nullable Instant runningSince;
            String status;
            try (PreparedStatement ps = jdbc.prepare(c, sql.lockForRun)) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    FenceChecks.checkHolder(rs, key, epoch, owner);
                    status = rs.getString(5);
                    runningId = rs.getObject(6);
                    runningFire = rs.getString(7);
                    runningSince = Rows.instant(rs, 8);
                }
            }
            // a statement of this transaction after the lock: at READ COMMITTED it sees what committed before the lock
            Optional<RunRecord> existing = find(c, sql.doneRun, key, fireKey);
            if (existing.isPresent()) {
                RunRecord d = existing.get();
                return new RunStart.AlreadyDone(
                        d.runId(), d.owner(), d.epoch(), d.finishedAt(), d.status() == RunStatus.MISSED);
            }
            if ("RUNNING".equals(status) && fireKey.equals(runningFire) && runningId != null && runningSince != null) {
                return new RunStart.InProgress(UUID.fromString(runningId.toString()), owner, epoch, runningSince);
            }
            UUID runId = UUID.randomUUID();
            try (PreparedStatement ps = jdbc.prepare(c, sql.startRun)) {
                ps.setString(1, key);
                ps.setObject(2, runId);
                ps.setString(3, fireKey);
                ps.setString(4, traceId);
                ps.setString(5, key);
                ps.setLong(6, epoch);
                ps.setString(7, key);
                ps.setString(8, fireKey);
                ps.setString(9, fireKey);
                ps.setString(10, fireKey);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("job '" + key + "' (epoch " + epoch
                                + ") changed hands inside the transaction that holds its row");
                    }
                    String previous = rs.getString(2);
                    return new RunStart.Started(
                            runId, rs.getInt(1), previous == null ? null : RunStatus.valueOf(previous));
                }
            }
        });
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
                bindRunAndHolder(ps, lockTimeout, key, runId, epoch, owner);
                ps.setString(8, outcome.name());
                ps.setString(9, error);
                ps.setLong(10, epoch);
                ps.setString(11, error);
                ps.setObject(12, runId);
                ps.setString(13, key);
                ps.setLong(14, epoch);
                if (!keepLease) {
                    leases.bindNotify(ps, 15, key);
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
                bindRunAndHolder(ps, lockTimeout, key, runId, epoch, owner);
                ps.setString(8, reason);
                leases.bindNotify(ps, 9, key);
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

    /**
     * Parameters 1-7 of {@link Sql#finish} and {@link Sql#abandon}: the lock timeout, the job's current run
     * ({@code cur}, {@code prior}), and the holder whose lease the statement clears.
     */
    private static void bindRunAndHolder(
            PreparedStatement ps, String lockTimeout, String key, UUID runId, long epoch, String owner)
            throws SQLException {
        ps.setString(1, lockTimeout);
        ps.setString(2, key);
        ps.setObject(3, runId);
        ps.setObject(4, runId);
        ps.setString(5, key);
        ps.setLong(6, epoch);
        ps.setString(7, owner);
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
     * claim waited for that lock is reported done, the job not claimed (the statement reads it again once locked).
     */
    public FireClaim claimAndStart(
            String key, String fireKey, String owner, Duration ttl, String lockTimeout, @Nullable String traceId) {
        boolean quick = true;
        for (int attempt = 0; attempt < 3; attempt++) {
            UUID runId = UUID.randomUUID();
            Object r;
            String wait = quick ? LeaseRows.quickLockTimeout(lockTimeout) : lockTimeout;
            Claim claim = new Claim(key, fireKey, owner, ttl, wait, runId, traceId);
            try {
                r = null;
                if (attempt == 0) {
                    // the first claim may share a statement with other threads' claims; a group that could not lock
                    // one of its rows in time has each claim made again on its own
                    ClaimGroups.Answer a = groups.claim(claim);
                    if (a instanceof ClaimGroups.Failed f) {
                        throw f.error();
                    }
                    if (a instanceof ClaimGroups.Value v) {
                        r = v.value();
                    }
                }
                if (r == null) {
                    r = claimAlone(claim);
                }
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

    /**
     * One statement for a group of claims ({@link ClaimGroups}), on this thread: a group of one is the one-claim
     * statement, whose faults reach its caller as they are; a larger group is {@link Sql#claimAndStartMany} with the
     * quick lock timeout, and if that statement fails on a lock timeout or a deadlock, each claim is made again on its
     * own ({@link ClaimGroups.Alone}). Answers in the order of {@code claims}.
     */
    List<ClaimGroups.Answer> sendGroup(List<Claim> claims) {
        if (claims.size() == 1) {
            return List.of(new ClaimGroups.Value(claimAlone(claims.get(0))));
        }
        try {
            Object[] answers = jdbc.run("claim and start", claims.size() + " jobs", true, c -> claimMany(c, claims));
            List<ClaimGroups.Answer> out = new ArrayList<>(answers.length);
            for (Object a : answers) {
                out.add(new ClaimGroups.Value(a));
            }
            return out;
        } catch (LedgerUnavailableException e) {
            if (!Faults.LOCK_TIMEOUT.equals(e.sqlState()) && !Faults.DEADLOCK.equals(e.sqlState())) {
                throw e;
            }
            return Collections.nCopies(claims.size(), new ClaimGroups.Alone());
        }
    }

    /** The one-claim statement ({@link #claimAndStartOnce}) for {@code k}, committed. */
    private Object claimAlone(Claim k) {
        return jdbc.run("claim and start", k.key(), true, c -> claimAndStartOnce(c, k));
    }

    /** {@link Sql#claimAndStartMany}: each claim's answer as {@link #claimAndStartOnce} gives it, in order. */
    private Object[] claimMany(Connection c, List<Claim> unsorted) throws SQLException {
        // in job key order, the order the statement locks the rows in; answered in the caller's order
        Integer[] order = new Integer[unsorted.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(
                order, (a, b) -> unsorted.get(a).key().compareTo(unsorted.get(b).key()));
        List<Claim> claims = new ArrayList<>(order.length);
        for (Integer i : order) {
            claims.add(unsorted.get(i));
        }
        int n = claims.size();
        String[] keys = new String[n];
        String[] fires = new String[n];
        String[] owners = new String[n];
        String[] runIds = new String[n];
        Long[] ttls = new Long[n];
        String[] traces = new String[n];
        for (int i = 0; i < n; i++) {
            Claim k = claims.get(i);
            keys[i] = k.key();
            fires[i] = k.fireKey();
            owners[i] = k.owner();
            runIds[i] = k.runId().toString();
            ttls[i] = k.ttl().toMillis();
            traces[i] = k.traceId();
        }
        Object[] answers = new Object[n];
        Arrays.fill(answers, NO_ROW);
        try (PreparedStatement ps = jdbc.prepare(c, sql.claimAndStartMany)) {
            ps.setString(1, claims.get(0).lockTimeout()); // a first claim's: the quick lock timeout
            ps.setArray(2, c.createArrayOf("text", keys));
            ps.setArray(3, c.createArrayOf("text", fires));
            ps.setArray(4, c.createArrayOf("text", owners));
            ps.setArray(5, c.createArrayOf("text", runIds));
            ps.setArray(6, c.createArrayOf("bigint", ttls));
            ps.setArray(7, c.createArrayOf("text", traces));
            ps.setString(8, leases.node());
            ps.setArray(9, c.createArrayOf("text", keys));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int i = (int) rs.getLong(1) - 1;
                    answers[order[i]] = answer(rs, 2, claims.get(i).runId());
                }
            }
        }
        return answers;
    }

    /** Claim statements sent and the claims they carried: {@code [statements, claims]} ({@link ClaimGroups#sent}). */
    long[] claimStatements() {
        return groups.sent();
    }

    /** What {@link #claimAndStartOnce} answers when the job has no row yet. */
    static final Object NO_ROW = new Object();

    /**
     * Started, Done (also when the fire completed while the claim waited for the row) or Held; {@link #NO_ROW} when the
     * job has no row.
     */
    private Object claimAndStartOnce(Connection c, Claim k) throws SQLException {
        String key = k.key();
        String fireKey = k.fireKey();
        String owner = k.owner();
        UUID runId = k.runId();
        try (PreparedStatement ps = jdbc.prepare(c, sql.claimAndStart)) {
            int i = 1;
            ps.setString(i++, k.lockTimeout());
            ps.setString(i++, key);
            ps.setString(i++, fireKey);
            ps.setString(i++, key);
            ps.setString(i++, owner);
            ps.setString(i++, fireKey);
            ps.setString(i++, owner);
            ps.setString(i++, leases.node());
            ps.setString(i++, runId.toString());
            ps.setLong(i++, k.ttl().toMillis());
            ps.setString(i++, fireKey);
            ps.setString(i++, k.traceId());
            ps.setString(i++, key);
            ps.setString(i, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? answer(rs, 1, runId) : NO_ROW;
            }
        }
    }

    /**
     * The answer in the current row of a claim statement's result, whose 6 columns start at {@code first}: Started,
     * Done or Held.
     */
    private static Object answer(ResultSet rs, int first, UUID runId) throws SQLException {
        String kind = rs.getString(first);
        long epoch = rs.getLong(first + 1);
        Duration remaining = Jdbc.between(Rows.instant(rs, first + 5), Rows.instant(rs, first + 4));
        if (kind.equals("done") || kind.equals("missed")) {
            return new FireStart.AlreadyDone(
                    rs.getString(first + 3), rs.getString(first + 2), epoch, kind.equals("missed"));
        }
        if (kind.equals("held")) {
            return new FireClaim.Held(rs.getString(first + 2), epoch, remaining);
        }
        return new FireClaim.Started(epoch, runId.toString(), remaining);
    }

    /** The COMPLETED (or MISSED) run of the fire, if any: a read without locks (a completed or missed fire is final). */
    public Optional<RunRecord> completedRun(String key, String fireKey) {
        return jdbc.run("read run", key, false, c -> find(c, sql.doneRun, key, fireKey));
    }

    public Optional<RunRecord> runOf(String key, String fireKey) {
        return jdbc.run("read run", key, false, c -> find(c, sql.runOf, key, fireKey));
    }

    private Optional<RunRecord> find(Connection c, String statement, String key, String fireKey) throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, statement)) {
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
