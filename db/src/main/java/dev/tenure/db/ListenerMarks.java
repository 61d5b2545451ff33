package dev.tenure.db;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Set;

/**
 * The {@code release_listener} rows of one listening connection: releases NOTIFY only on channels with a live row.
 * Rows live 30 s and are refreshed every 10 s; rows of vanished listeners are purged after 5 minutes.
 */
final class ListenerMarks {

    /** How often the listening thread refreshes its rows. */
    public static final long REFRESH_NANOS = 10_000_000_000L;

    private final String upsert;
    private final String deleteOthers;
    private final String purge;
    private final String deleteAll;
    private final String listener;

    public ListenerMarks(String quotedSchema, String listener) {
        String t = quotedSchema + ".release_listener";
        this.listener = listener;
        upsert = """
                INSERT INTO %s (channel, listener, expires_at)
                SELECT c, ?, clock_timestamp() + interval '30 seconds' FROM unnest(?::text[]) AS c
                ON CONFLICT (channel, listener) DO UPDATE SET expires_at = excluded.expires_at""".formatted(t);
        deleteOthers = "DELETE FROM %s WHERE listener = ? AND channel <> ALL (?::text[])".formatted(t);
        purge = "DELETE FROM %s WHERE expires_at < clock_timestamp() - interval '5 minutes'".formatted(t);
        deleteAll = "DELETE FROM %s WHERE listener = ?".formatted(t);
    }

    /** Makes the rows of this listener exactly {@code channels} (call after LISTEN, so a row never precedes it). */
    public void mark(Connection c, Set<String> channels) throws SQLException {
        Array array = c.createArrayOf("text", channels.toArray());
        try (PreparedStatement del = c.prepareStatement(deleteOthers);
                PreparedStatement up = c.prepareStatement(upsert)) {
            del.setString(1, listener);
            del.setArray(2, array);
            del.executeUpdate();
            if (!channels.isEmpty()) {
                up.setString(1, listener);
                up.setArray(2, array);
                up.executeUpdate();
            }
        }
    }

    /** Refreshes this listener's rows and purges long-dead ones of others. */
    public void refresh(Connection c, Set<String> channels) throws SQLException {
        mark(c, channels);
        try (PreparedStatement ps = c.prepareStatement(purge)) {
            ps.executeUpdate();
        }
    }

    public void unmarkAll(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(deleteAll)) {
            ps.setString(1, listener);
            ps.executeUpdate();
        }
    }
}
