package dev.tenure.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The lease operations on {@code job_execution}: each one statement committed on its own. (The fence check and the
 * completion, in the caller's transaction, are {@link FenceChecks}.) Thread-safe.
 */
final class LeaseRows {

    private final Jdbc jdbc;
    private final Sql sql;
    private final String schema;
    private final String claimLockTimeout;
    private final String renewLockTimeout;
    private final StaleFences staleFences;
    /** The node name written with every owner this store sets (null: none). */
    private final @Nullable String node;

    public LeaseRows(
            Jdbc jdbc,
            Sql sql,
            String schema,
            Duration claimLockTimeout,
            Duration renewLockTimeout,
            @Nullable String node) {
        this.jdbc = jdbc;
        this.node = node;
        this.sql = sql;
        this.schema = schema;
        this.claimLockTimeout = Long.toString(Math.max(1, claimLockTimeout.toMillis()));
        this.renewLockTimeout = Long.toString(Math.max(1, renewLockTimeout.toMillis()));
        this.staleFences = new StaleFences(jdbc, sql, schema);
    }

    /** The node name this store records with every owner it sets; null if none. */
    @Nullable
    String node() {
        return node;
    }

    public String channel(String key) {
        return Channels.of(schema, key);
    }

    /**
     * Claims {@code key} for {@code owner}: one UPDATE that also reports the holder when it does not apply (and an
     * INSERT the first time). If the row stays locked by an open transaction (a fenced write of the current holder)
     * longer than the claim's lock timeout, the key counts as held by whoever the committed row names; unless the lease
     * has expired and the transaction sits idle (its holder frozen): then it is ended and the claim made again.
     */
    public ClaimResult claim(String key, String owner, Duration ttl) {
        boolean quick = true;
        for (int attempt = 0; attempt < 3; attempt++) {
            ClaimResult r;
            String lockTimeout = quick ? quickLockTimeout(claimLockTimeout) : claimLockTimeout;
            try {
                r = jdbc.run("claim", key, true, c -> tryClaim(c, key, owner, ttl, lockTimeout))
                        .orElse(null);
            } catch (LedgerUnavailableException e) {
                if (!Faults.LOCK_TIMEOUT.equals(e.sqlState())) {
                    throw e;
                }
                if (attempt < 2 && (endStaleFences(key) || quick)) {
                    quick = false;
                    continue; // a frozen holder's transaction ended, or a live one gets the full wait to commit
                }
                return heldBy(key); // locked by an open transaction: held, whatever the committed row says
            }
            if (r instanceof ClaimResult.Claimed) {
                return r;
            }
            if (r instanceof ClaimResult.Held h
                    && h.owner() != null
                    && h.remaining().compareTo(Duration.ZERO) > 0) {
                return h;
            }
            // no row yet (inserted meanwhile by someone else), or the lease ended between snapshot and check: again
        }
        return heldBy(key);
    }

    /** Claimed, Held (as of the statement's snapshot), or empty when no row existed and someone else inserted it. */
    private Optional<ClaimResult> tryClaim(Connection c, String key, String owner, Duration ttl, String lockTimeout)
            throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, sql.claim)) {
            ps.setString(1, lockTimeout);
            ps.setString(2, key);
            ps.setString(3, owner);
            ps.setString(4, owner);
            ps.setString(5, node);
            ps.setLong(6, ttl.toMillis());
            ps.setString(7, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    Instant expires = Rows.instant(rs, 5);
                    Duration remaining = Jdbc.between(Rows.instant(rs, 6), expires);
                    return Optional.of(
                            rs.getBoolean(1)
                                    ? new ClaimResult.Claimed(rs.getLong(2), Rows.at(rs, 4), Rows.at(rs, 5), remaining)
                                    : new ClaimResult.Held(rs.getString(3), rs.getLong(2), expires, remaining));
                }
            }
        }
        try (PreparedStatement ps = jdbc.prepare(c, sql.claimNew)) {
            ps.setString(1, key);
            ps.setString(2, owner);
            ps.setString(3, node);
            ps.setLong(4, ttl.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                Instant expires = Rows.at(rs, 3);
                return Optional.of(new ClaimResult.Claimed(
                        rs.getLong(1), Rows.at(rs, 2), expires, Jdbc.between(Rows.instant(rs, 4), expires)));
            }
        }
    }

    /**
     * A claim waits for a row lock only where the lease has expired (a live lease's row is not locked by a claim), so
     * the lock is a frozen holder's idle transaction or one about to end. The first attempt waits this long, then the
     * frozen holders' transactions are ended ({@link StaleFences}: idle for a second or more) and the claim waits the
     * full lock timeout for the others. So a job is free about one TTL after its holder froze inside a transaction.
     */
    static final long QUICK_LOCK_TIMEOUT_MILLIS = 200;

    static String quickLockTimeout(String lockTimeout) {
        return Long.toString(Math.min(QUICK_LOCK_TIMEOUT_MILLIS, Long.parseLong(lockTimeout)));
    }

    /** The tag of {@code key}'s fenced transactions; see {@link StaleFences}. */
    long fenceTag(String key) {
        return staleFences.tag(key);
    }

    /**
     * After a claim timed out on the row lock: ends the idle fenced transactions of {@code key} if its lease has expired
     * ({@link StaleFences}). True if it ended any; a fault counts as none (the job stays held).
     */
    boolean endStaleFences(String key) {
        try {
            return staleFences.end(key) > 0;
        } catch (LedgerUnavailableException e) {
            return false;
        }
    }

    private ClaimResult.Held heldBy(String key) {
        Optional<JobHolder> h = read(key);
        return h.map(x -> new ClaimResult.Held(x.owner(), x.epoch(), x.leaseExpiresAt(), x.remaining()))
                .orElseGet(() -> new ClaimResult.Held(null, 0, null, Duration.ZERO));
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
                    return Optional.of(new JobHolder(
                            key,
                            rs.getString(1),
                            rs.getLong(2),
                            Rows.instant(rs, 3),
                            expires,
                            Jdbc.between(Rows.instant(rs, 5), expires)));
                }
            }
        });
    }

    /** Who holds {@code key} now by the database clock; empty if nobody's lease is live. */
    Optional<JobHolder> holder(String key) {
        return read(key).filter(h -> h.owner() != null && h.remaining().compareTo(Duration.ZERO) > 0);
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
                    return rs.next() ? Optional.of(Rows.at(rs, 1)) : Optional.empty();
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
                ps.setString(5, node);
                ps.setLong(6, ttl.toMillis());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    Instant expires = Rows.at(rs, 2);
                    Instant now = Rows.at(rs, 3);
                    return Optional.of(
                            new ClaimResult.Claimed(rs.getLong(1), now, expires, Jdbc.between(now, expires)));
                }
            }
        });
    }
}
