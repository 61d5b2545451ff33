package dev.tenure.db;


import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The lease operations on {@code job_execution}: each one statement committed on its own, except the fence check and
 * the completion, which run in the caller's transaction. Thread-safe.
 */
final class LeaseRows {

    private final Jdbc jdbc;
    private final Sql sql;
    private final String schema;
    private final String claimLockTimeout;
    private final String renewLockTimeout;

    public LeaseRows(Jdbc jdbc, Sql sql, String schema, Duration claimLockTimeout, Duration renewLockTimeout) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.schema = schema;
        this.claimLockTimeout = Long.toString(Math.max(1, claimLockTimeout.toMillis()));
        this.renewLockTimeout = Long.toString(Math.max(1, renewLockTimeout.toMillis()));
    }

    public String channel(String key) {
        return Channels.of(schema, key);
    }

    /**
     * Claims {@code key} for {@code owner}: one UPDATE that also reports the holder when it does not apply (and an
     * INSERT the first time). If the row stays locked by an open transaction (a fenced write of the current holder)
     * longer than the claim's lock timeout, the key counts as held by whoever the committed row names.
     */
    public ClaimResult claim(String key, String owner, Duration ttl) {
        for (int attempt = 0; attempt < 3; attempt++) {
            ClaimResult r;
            try {
                r = jdbc.run("claim", key, true, c -> tryClaim(c, key, owner, ttl));
            } catch (LedgerUnavailableException e) {
                if (!Faults.LOCK_TIMEOUT.equals(e.sqlState())) {
                    throw e;
                }
                return heldBy(key); // locked by an open transaction: held, whatever the committed row says
            }
            if (r instanceof ClaimResult.Claimed) {
                return r;
            }
            if (r instanceof ClaimResult.HeldBy h && h.owner() != null && h.remaining().compareTo(Duration.ZERO) > 0) {
                return h;
            }
            // no row yet (inserted meanwhile by someone else), or the lease ended between snapshot and check: again
        }
        return heldBy(key);
    }

    /** Claimed, HeldBy (as of the statement's snapshot), or null when no row existed and someone else inserted it. */
    private ClaimResult tryClaim(Connection c, String key, String owner, Duration ttl) throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, sql.claim)) {
            ps.setString(1, claimLockTimeout);
            ps.setString(2, key);
            ps.setString(3, owner);
            ps.setString(4, owner);
            ps.setLong(5, ttl.toMillis());
            ps.setString(6, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    Instant expires = Rows.instant(rs, 5);
                    Duration remaining = Jdbc.between(Rows.instant(rs, 6), expires);
                    return rs.getBoolean(1)
                            ? new ClaimResult.Claimed(rs.getLong(2), Rows.instant(rs, 4), expires, remaining)
                            : new ClaimResult.HeldBy(rs.getString(3), rs.getLong(2), expires, remaining);
                }
            }
        }
        try (PreparedStatement ps = jdbc.prepare(c, sql.claimNew)) {
            ps.setString(1, key);
            ps.setString(2, owner);
            ps.setLong(3, ttl.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                Instant expires = Rows.instant(rs, 3);
                return new ClaimResult.Claimed(rs.getLong(1), Rows.instant(rs, 2), expires,
                        Jdbc.between(Rows.instant(rs, 4), expires));
            }
        }
    }

    private ClaimResult.HeldBy heldBy(String key) {
        Optional<JobHolder> h = read(key);
        return h.map(x -> new ClaimResult.HeldBy(x.owner(), x.epoch(), x.leaseExpiresAt(), x.remaining()))
                .orElseGet(() -> new ClaimResult.HeldBy(null, 0, null, Duration.ZERO));
    }

    /** The row as committed (owner may be null or the lease expired), or empty if the job has no row. */
    public Optional<JobHolder> read(String key) {
        return jdbc.run("read", key, false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.holder)) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    Instant expires = Rows.instant(rs, 4);
                    return Optional.of(new JobHolder(key, rs.getString(1), rs.getLong(2), Rows.instant(rs, 3), expires,
                            Jdbc.between(Rows.instant(rs, 5), expires)));
                }
            }
        });
    }

    /** Extends the live lease of {@code epoch} held by {@code owner}; false if not current or its lease has expired. */
    public boolean renewEpoch(String key, long epoch, String owner, Duration ttl) {
        return renew(sql.renewEpoch, key, ttl, ps -> {
            ps.setLong(4, epoch);
            ps.setString(5, owner);
        });
    }

    /** Extends the live lease of {@code owner}; false if someone else holds it or it has expired. */
    public boolean renewOwner(String key, String owner, Duration ttl) {
        return renew(sql.renewOwner, key, ttl, ps -> ps.setString(4, owner));
    }

    /**
     * Extends, in one statement, every live lease of {@code keys[i]} held by {@code owners[i]} to {@code ttlMillis[i]}
     * from now; each row is checked against its own owner, exactly as {@link #renewOwner} does. Returns
     * {@code key + '\u0000' + owner} of every lease extended.
     */
    public java.util.Set<String> renewOwners(String[] keys, String[] owners, Long[] ttlMillis) {
        return jdbc.run("renew", keys.length + " leases", true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.renewOwners)) {
                ps.setString(1, renewLockTimeout);
                ps.setArray(2, c.createArrayOf("text", keys));
                ps.setArray(3, c.createArrayOf("text", owners));
                ps.setArray(4, c.createArrayOf("bigint", ttlMillis));
                java.util.Set<String> renewed = new java.util.HashSet<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        renewed.add(rs.getString(1) + '\u0000' + rs.getString(2));
                    }
                }
                return renewed;
            }
        });
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private boolean renew(String text, String key, Duration ttl, Binder who) {
        return jdbc.run("renew", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, text)) {
                ps.setString(1, renewLockTimeout);
                ps.setLong(2, ttl.toMillis());
                ps.setString(3, key);
                who.bind(ps);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }

    /**
     * Locks the row FOR KEY SHARE in the caller's transaction and checks that {@code epoch} of {@code owner} is current
     * and its lease live by the database clock. A claim (FOR UPDATE) waits for this lock, so the caller's writes commit
     * before any hand-over or not at all; renewals (FOR NO KEY UPDATE) do not. Errors are the caller's to handle: they
     * are SQL errors of the caller's own transaction.
     */
    public void fence(Connection c, String key, long epoch, String owner) throws SQLException {
        requireTransaction(c, "fence", key);
        try (PreparedStatement ps = jdbc.prepare(c, sql.fence)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                checkHolder(rs, key, epoch, owner);
            }
        }
    }

    /**
     * The fence check and the completion of run {@code runId} in one statement, in the caller's transaction: the run
     * row turns COMPLETED only if {@code epoch} of {@code owner} is current and live; the caller's commit makes it
     * durable together with its business writes. Completing a run twice is harmless.
     *
     * @throws StaleOwnerException   if the epoch is stale (roll back)
     * @throws IllegalStateException if the run row is not this run's RUNNING or COMPLETED row
     */
    public void complete(Connection c, String key, long epoch, String owner, java.util.UUID runId) throws SQLException {
        completion(c, "complete", false, key, epoch, owner, runId);
    }

    /**
     * {@link #complete} and the release of the lease in one statement, in the caller's transaction, for a run that is
     * that one transaction: nothing of the run may follow its commit. The row is locked (FOR NO KEY UPDATE) before the
     * check, so a claim waits for the caller's commit; the lease is cleared only under the check, and waiters are
     * notified when the caller commits. If the caller rolls back, the lease is still held and the run still RUNNING.
     *
     * @throws StaleOwnerException   if the epoch is stale (roll back)
     * @throws IllegalStateException if the run row is not this run's RUNNING (or COMPLETED) row
     */
    public void completeAndRelease(Connection c, String key, long epoch, String owner, java.util.UUID runId)
            throws SQLException {
        completion(c, "completeAndRelease", true, key, epoch, owner, runId);
    }

    /** {@link Sql#complete}, or with {@code release} {@link Sql#completeAndRelease}: bound, run and checked. */
    private void completion(Connection c, String op, boolean release, String key, long epoch, String owner,
                            java.util.UUID runId) throws SQLException {
        requireTransaction(c, op, key);
        try (PreparedStatement ps = jdbc.prepare(c, release ? sql.completeAndRelease : sql.complete)) {
            int i = 1;
            ps.setString(i++, key);
            ps.setLong(i++, epoch);
            ps.setString(i++, owner);
            ps.setObject(i++, runId);
            ps.setString(i++, key);
            if (release) {
                ps.setString(i++, key);
                ps.setLong(i++, epoch);
                ps.setString(i++, owner);
            }
            ps.setObject(i++, runId);
            if (release) {
                bindNotify(ps, i, key);
            }
            try (ResultSet rs = ps.executeQuery()) {
                checkHolder(rs, key, epoch, owner);
                String before = rs.getString(6);
                if (rs.getLong(5) == 0 && !"COMPLETED".equals(before)) {
                    throw new IllegalStateException("run " + runId + " of job '" + key + "' cannot complete: its row is "
                            + (before == null ? "missing" : before) + " (complete only the run this context belongs to)");
                }
                if (release && rs.getLong(7) != 1) {
                    throw new IllegalStateException("the lease of job '" + key + "' (epoch " + epoch + ") passed the "
                            + "check but was not cleared");
                }
            }
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

    /** Clears the lease of {@code epoch} of {@code owner} and notifies waiters; the database time of the release, or empty if not ours. */
    public Optional<Instant> releaseEpoch(String key, long epoch, String owner) {
        return release(sql.releaseEpoch, key, 4, ps -> {
            ps.setLong(2, epoch);
            ps.setString(3, owner);
        });
    }

    /** Clears {@code owner}'s lease and notifies waiters; the database time of the release, or empty if not ours. */
    public Optional<Instant> releaseOwner(String key, String owner) {
        return release(sql.releaseOwner, key, 3, ps -> ps.setString(2, owner));
    }

    private Optional<Instant> release(String text, String key, int notifyAt, Binder who) {
        return jdbc.run("release", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, text)) {
                ps.setString(1, key);
                who.bind(ps);
                bindNotify(ps, notifyAt, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(Rows.instant(rs, 1)) : Optional.empty();
                }
            }
        });
    }

    /** Binds the three parameters of a notify-if-listened clause from {@code at}: channel, key, channel. */
    void bindNotify(PreparedStatement ps, int at, String key) throws SQLException {
        ps.setString(at, channel(key));
        ps.setString(at + 1, key);
        ps.setString(at + 2, channel(key));
    }

    /**
     * Passes {@code from}'s lease straight to {@code to} with a new epoch, in one statement (the key is never free in
     * between). Like a claim, it locks the row FOR UPDATE first, so it waits for open fenced transactions (up to the
     * claim lock timeout). Empty if {@code from} no longer holds it; then nothing changed.
     */
    public Optional<ClaimResult.Claimed> handOff(String key, String from, String to, Duration ttl) {
        return jdbc.run("hand-off", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.handOff)) {
                ps.setString(1, claimLockTimeout);
                ps.setString(2, key);
                ps.setString(3, from);
                ps.setString(4, to);
                ps.setLong(5, ttl.toMillis());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    Instant expires = Rows.instant(rs, 2);
                    Instant now = Rows.instant(rs, 3);
                    return Optional.of(new ClaimResult.Claimed(rs.getLong(1), now, expires, Jdbc.between(now, expires)));
                }
            }
        });
    }
}
