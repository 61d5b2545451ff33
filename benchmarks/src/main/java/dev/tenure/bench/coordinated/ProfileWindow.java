package dev.tenure.bench.coordinated;

import dev.tenure.bench.ValkeyAdmin;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two ends of one row's measured units, read by {@link PgProfile}. Client-side counters (the recorders, the wire
 * round trips, the WAL insert position, CPU times, Valkey's commandstats) are exact at any moment. Postgres'
 * cumulative statistics ({@code pg_stat_database}, {@code pg_stat_wal}) are not: a busy backend reports them at most
 * once a second, and an idle one 10 s after it went idle (PGSTAT_IDLE_INTERVAL in Postgres 15). So the statistics are
 * read after {@code settle} of idleness at each end: before the first measured unit, and after the last one. They are
 * read over a connection to the {@code postgres} database, so the reading never counts in the profiled database.
 */
final class ProfileWindow {

    /** Everything read at one end. */
    record Reading(
            long nanos,
            double jvmCpu,
            Map<Long, Double> backendCpu,
            long lsn,
            long roundTrips,
            long bytesOut,
            long bytesIn,
            Map<String, Long> library,
            Map<String, Long> driver,
            Map<String, Long> valkey,
            Map<String, Double> pg) {}

    private final Connection stats;
    private final String db;
    private final long settleMillis;
    private final RecordingDataSource library;
    private final RecordingDataSource driver;
    private final ValkeyAdmin valkey;
    Reading begin;
    Reading end;
    private String slot;
    private java.sql.Timestamp beginAt;
    private java.sql.Timestamp endAt;

    ProfileWindow(
            Connection stats,
            String db,
            double settleSeconds,
            RecordingDataSource library,
            RecordingDataSource driver,
            ValkeyAdmin valkey) {
        this.stats = stats;
        this.db = db;
        this.settleMillis = (long) (settleSeconds * 1000);
        this.library = library;
        this.driver = driver;
        this.valkey = valkey;
    }

    /**
     * Keeps the cluster's WAL from here on until {@link #releaseWal}: a temporary physical replication slot of the stats
     * session (dropped with it if this process dies), so a checkpoint during the settles cannot remove the segments
     * pg_walinspect reads afterwards. Returns null, or why there is no slot.
     */
    String reserveWal(String name) {
        try (PreparedStatement ps =
                stats.prepareStatement("SELECT pg_create_physical_replication_slot(?, true, true)")) {
            ps.setString(1, name);
            ps.execute();
            slot = name;
            return null;
        } catch (SQLException e) {
            return Node.oneLine(e.getMessage());
        }
    }

    void releaseWal() {
        if (slot == null) {
            return;
        }
        try (PreparedStatement ps = stats.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
            ps.setString(1, slot);
            ps.execute();
            slot = null;
        } catch (SQLException e) {
            System.out.println("# could not drop replication slot " + slot + ": " + Node.oneLine(e.getMessage()));
        }
    }

    /** Before the first measured unit: settle, then read everything. */
    void begin() {
        try {
            Thread.sleep(settleMillis);
            begin = read(pgStats());
            beginAt = new java.sql.Timestamp(System.currentTimeMillis());
        } catch (Exception e) {
            throw new IllegalStateException("reading the window's start failed", e);
        }
    }

    /** After the last measured unit: read the client side at once, settle, then read Postgres' statistics. */
    void end() {
        try {
            Reading now = read(Map.of());
            endAt = new java.sql.Timestamp(System.currentTimeMillis());
            Thread.sleep(settleMillis);
            end = new Reading(
                    now.nanos(),
                    now.jvmCpu(),
                    now.backendCpu(),
                    now.lsn(),
                    now.roundTrips(),
                    now.bytesOut(),
                    now.bytesIn(),
                    now.library(),
                    now.driver(),
                    now.valkey(),
                    pgStats());
        } catch (Exception e) {
            throw new IllegalStateException("reading the window's end failed", e);
        }
    }

    private Reading read(Map<String, Double> pg) throws Exception {
        long nanos = System.nanoTime();
        List<Long> pids = new ArrayList<>();
        try (PreparedStatement ps = stats.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE datname = ? AND backend_type = 'client backend'")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pids.add(rs.getLong(1));
                }
            }
        }
        long lsn = lsn(one("SELECT pg_current_wal_insert_lsn()::text"));
        return new Reading(
                nanos,
                Proc.cpuSeconds(ProcessHandle.current().pid()),
                Proc.cpuByPid(pids),
                lsn,
                RoundTripSocketFactory.ROUND_TRIPS.sum(),
                RoundTripSocketFactory.BYTES_OUT.sum(),
                RoundTripSocketFactory.BYTES_IN.sum(),
                library.snapshot(),
                driver.snapshot(),
                valkey == null ? Map.of() : valkey.commandCalls(),
                pg);
    }

    private Map<String, Double> pgStats() throws SQLException {
        Map<String, Double> m = new LinkedHashMap<>();
        try (PreparedStatement ps = stats.prepareStatement("SELECT d.xact_commit, d.xact_rollback, d.tup_inserted, "
                + "d.tup_updated, d.tup_deleted, d.tup_returned, d.tup_fetched, d.blks_hit, d.blks_read, w.wal_records, "
                + "w.wal_fpi, w.wal_bytes, b.checkpoints_timed + b.checkpoints_req AS checkpoints "
                + "FROM pg_stat_database d, pg_stat_wal w, pg_stat_bgwriter b WHERE d.datname = ?")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    m.put(rs.getMetaData().getColumnName(i), rs.getDouble(i));
                }
            }
        }
        return m;
    }

    private String one(String sql) throws SQLException {
        try (PreparedStatement ps = stats.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** A pg_lsn's text ({@code 16/B374D848}) as a byte position. */
    static long lsn(String text) {
        int slash = text.indexOf('/');
        return (Long.parseLong(text.substring(0, slash), 16) << 32) + Long.parseLong(text.substring(slash + 1), 16);
    }

    static String lsnText(long lsn) {
        return Long.toHexString(lsn >>> 32).toUpperCase() + "/"
                + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase();
    }

    /** Backend CPU seconds over the window: backends alive at the end, less what they had used at the start. */
    double backendCpu() {
        return Proc.delta(begin.backendCpu(), end.backendCpu());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    double seconds() {
        return (end.nanos() - begin.nanos()) / 1e9;
    }

    double pg(String key) {
        return end.pg().getOrDefault(key, 0.0) - begin.pg().getOrDefault(key, 0.0);
    }

    static Map<String, Long> delta(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> d = new LinkedHashMap<>();
        b.forEach((k, v) -> {
            long x = v - a.getOrDefault(k, 0L);
            if (x != 0) {
                d.put(k, x);
            }
        });
        return d;
    }

    /**
     * The tables of the profiled database that autovacuum vacuumed or analyzed inside the window (their last_autovacuum
     * or last_autoanalyze falls in it), read after the window on a connection to that database. Autovacuum's
     * transactions count in the database's commits.
     */
    String maintenance(String url, String user) {
        String sql = "SELECT string_agg(relname || CASE WHEN v AND a THEN ' (vacuum, analyze)' WHEN v THEN ' (vacuum)' "
                + "ELSE ' (analyze)' END, ', ' ORDER BY relname) FROM (SELECT relname, last_autovacuum BETWEEN ? AND ? AS v, "
                + "last_autoanalyze BETWEEN ? AND ? AS a FROM pg_stat_all_tables) t WHERE v OR a";
        try (Connection c = DriverManager.getConnection(url, user, null);
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setTimestamp(1, beginAt);
            ps.setTimestamp(2, endAt);
            ps.setTimestamp(3, beginAt);
            ps.setTimestamp(4, endAt);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1) == null ? "none" : rs.getString(1);
            }
        } catch (SQLException e) {
            return "? (" + Node.oneLine(e.getMessage()) + ")";
        }
    }

    /**
     * The window's WAL record by record ({@code pg_walinspect}, on a connection to the profiled database where the
     * extension is installed): per resource manager, {records, bytes, full-page-image bytes} of the records that touch
     * a relation of this database or belong to a transaction that did (its commit record), and the same for every
     * record in the range under {@code "(cluster)"}. Empty if the extension is missing or the WAL is gone.
     */
    Map<String, long[]> walByResourceManager(String url, String user, long dbOid) {
        Map<String, long[]> m = new LinkedHashMap<>();
        if (end.lsn() <= begin.lsn()) {
            return m;
        }
        String sql = "WITH r AS (SELECT * FROM pg_get_wal_records_info(?::pg_lsn, ?::pg_lsn)), "
                + "mine AS (SELECT DISTINCT xid::text AS x FROM r WHERE block_ref ~ ? AND xid::text <> '0') "
                + "SELECT resource_manager, count(*), sum(record_length), sum(fpi_length) FROM r "
                + "WHERE block_ref ~ ? OR xid::text IN (SELECT x FROM mine) GROUP BY 1 "
                + "UNION ALL SELECT '(cluster)', count(*), sum(record_length), sum(fpi_length) FROM r ORDER BY 3 DESC";
        String rel = "rel [0-9]+/" + dbOid + "/";
        for (int attempt = 1; ; attempt++) {
            m.clear();
            try (Connection c = DriverManager.getConnection(url, user, null);
                    PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, lsnText(begin.lsn()));
                ps.setString(2, lsnText(end.lsn()));
                ps.setString(3, rel);
                ps.setString(4, rel);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        m.put(rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3), rs.getLong(4)});
                    }
                }
                break;
            } catch (SQLException e) {
                m.put("error: " + Node.oneLine(e.getMessage()), new long[] {0, 0, 0});
                if (attempt == 3) {
                    break;
                }
                sleep(1000);
            }
        }
        return m;
    }
}
