package dev.tenure.db.internal;

import dev.tenure.db.ClaimResult;
import dev.tenure.db.JobHolder;
import dev.tenure.db.LedgerUnavailableException;
import dev.tenure.db.StaleOwnerException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The lease operations on {@code job_execution}: each one statement in autocommit, except the fence check, which
 * runs in the caller's transaction. Thread-safe.
 */
public final class LeaseRows {

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

    /** Extends the live lease of {@code epoch}; false if the epoch is not current or its lease has expired. */
    public boolean renewEpoch(String key, long epoch, Duration ttl) {
        return renew(sql.renewEpoch, key, ttl, ps -> ps.setLong(4, epoch));
    }

    /** Extends the live lease of {@code owner}; false if someone else holds it or it has expired. */
    public boolean renewOwner(String key, String owner, Duration ttl) {
        return renew(sql.renewOwner, key, ttl, ps -> ps.setString(4, owner));
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
     * Locks the row FOR SHARE in the caller's transaction and checks that {@code epoch} is current and its lease live
     * by the database clock. A claim waits for this lock, so the caller's writes commit before any hand-over or not
     * at all. Errors are the caller's to handle: they are SQL errors of the caller's own transaction.
     */
    public void fence(Connection c, String key, long epoch) throws SQLException {
        if (c.getAutoCommit()) {
            throw new IllegalStateException("fence(" + key + ") needs a transaction (autocommit is on): the row lock "
                    + "would end with the statement and protect nothing");
        }
        try (PreparedStatement ps = jdbc.prepare(c, sql.fence)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new StaleOwnerException(key, epoch, 0, null, null);
                }
                long current = rs.getLong(1);
                if (current != epoch || !rs.getBoolean(4)) {
                    throw new StaleOwnerException(key, epoch, current, rs.getString(2), Rows.instant(rs, 3));
                }
            }
        }
    }

    /** Clears the lease of {@code epoch} and notifies waiters; the database time of the release, or empty if not ours. */
    public Optional<Instant> releaseEpoch(String key, long epoch) {
        return release(sql.releaseEpoch, key, ps -> ps.setLong(2, epoch));
    }

    /** Clears {@code owner}'s lease and notifies waiters; the database time of the release, or empty if not ours. */
    public Optional<Instant> releaseOwner(String key, String owner) {
        return release(sql.releaseOwner, key, ps -> ps.setString(2, owner));
    }

    private Optional<Instant> release(String text, String key, Binder who) {
        return jdbc.run("release", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, text)) {
                ps.setString(1, key);
                who.bind(ps);
                ps.setString(3, channel(key));
                ps.setString(4, key);
                ps.setString(5, channel(key));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(Rows.instant(rs, 1)) : Optional.empty();
                }
            }
        });
    }

    /**
     * Passes {@code from}'s lease straight to {@code to} with a new epoch, in one UPDATE (the key is never free in
     * between). Empty if {@code from} no longer holds it; then nothing changed.
     */
    public Optional<ClaimResult.Claimed> handOff(String key, String from, String to, Duration ttl) {
        return jdbc.run("hand-off", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.handOff)) {
                ps.setString(1, to);
                ps.setLong(2, ttl.toMillis());
                ps.setString(3, key);
                ps.setString(4, from);
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
