package dev.tenure.db;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * Ends the fenced transactions that hold a job's row locked after the job's lease has expired: a holder frozen inside
 * one (a GC pause, SIGSTOP, a stalled VM) would otherwise hold every claim back until it thaws.
 *
 * <p>Every fence check and completion tags its transaction with a shared transaction-level advisory lock on the job's
 * {@linkplain #tag tag}, which other sessions see in {@code pg_locks} and which ends with the transaction. When a claim
 * of an expired lease times out on the row lock, {@link #end} terminates ({@code pg_terminate_backend}) the sessions
 * that hold the tag and sit idle in their transaction, so the claim can go ahead: their transactions roll back. A live
 * lease, a session running a statement, or another job's fenced transaction is never touched. The claiming role must be
 * allowed to end those sessions (the same role, or a member of {@code pg_signal_backend}; a superuser's only by a
 * superuser); others are left alone and the job stays held until they end. Thread-safe.
 */
final class StaleFences {

    private final Jdbc jdbc;
    private final Sql sql;
    private final String schema;

    StaleFences(Jdbc jdbc, Sql sql, String schema) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.schema = schema;
    }

    /** The advisory lock key of {@code key}'s fenced transactions in this schema: 64 bits of a SHA-256. */
    long tag(String key) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(("tenure fence\u0000" + schema + "\u0000" + key).getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(d.digest()).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * Terminates the sessions idle inside a fenced transaction of {@code key}, if the job's lease has expired by the
     * database clock. Returns how many it ended (zero if the lease is live, nobody is idle, or the role may not).
     */
    int end(String key) {
        long tag = tag(key);
        return jdbc.run("end stale fences", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.endStaleFences)) {
                ps.setLong(1, tag);
                ps.setLong(2, tag);
                ps.setString(3, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getInt(1) : 0;
                }
            }
        });
    }
}
