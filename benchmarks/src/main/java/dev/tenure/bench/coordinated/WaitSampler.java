package dev.tenure.bench.coordinated;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/**
 * Samples what the benchmark database's client backends are doing, every {@code intervalMillis} during a window
 * ({@code pg_stat_activity}, read from the {@code postgres} database): on CPU (active, no wait event), waiting for the
 * WAL flush, for a lock, for the client, and so on. Shows whether fsync, locks or CPU hold the backends.
 */
final class WaitSampler {

    private final String url;
    private final String user;
    private final String db;

    WaitSampler(String host, int port, String user, String db) {
        this.url = "jdbc:postgresql://" + host + ":" + port + "/postgres";
        this.user = user;
        this.db = db;
    }

    /** Samples until {@code end} (System.nanoTime); returns backend-samples per category, plus "samples". */
    Map<String, Long> sample(long start, long end, long intervalMillis) {
        Map<String, Long> m = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(url, user, null);
                Statement s = c.createStatement()) {
            Tally.sleepUntil(start);
            while (System.nanoTime() < end) {
                try (ResultSet rs = s.executeQuery("SELECT state, wait_event_type, wait_event FROM pg_stat_activity "
                        + "WHERE datname = '" + db + "' AND backend_type = 'client backend'")) {
                    while (rs.next()) {
                        m.merge(category(rs.getString(1), rs.getString(2), rs.getString(3)), 1L, Long::sum);
                    }
                }
                m.merge("samples", 1L, Long::sum);
                Thread.sleep(intervalMillis);
            }
        } catch (Exception e) {
            m.put("error", 1L);
        }
        return m;
    }

    static String category(String state, String type, String event) {
        if (state == null || state.startsWith("idle")) {
            return state != null && state.equals("idle in transaction") ? "idle in tx (client's turn)" : "idle";
        }
        if (type == null) {
            return "cpu";
        }
        if (event != null
                && (event.startsWith("WALSync")
                        || event.startsWith("WALWrite")
                        || event.equals("WALInsert")
                        || event.equals("WALBufMapping"))) {
            return "wal";
        }
        if (type.equals("Lock")) {
            return "lock:" + event;
        }
        if (type.equals("Client")) {
            return "client";
        }
        return type + ":" + event;
    }
}
