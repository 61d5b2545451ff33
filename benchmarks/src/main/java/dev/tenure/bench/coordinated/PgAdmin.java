package dev.tenure.bench.coordinated;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.TenureSchema;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark's own database (created and dropped by run-coordinated.sh): the schemas of Tenure and of every peer,
 * each scenario's business table and backlog, and the statistics read around each window. Statistics are read over a
 * connection to the {@code postgres} database, so that reading them never counts in the benchmark database's own
 * {@code pg_stat_database} row; and set-up runs on short-lived connections, whose statistics reach the server when
 * they close (a backend that stays open may report them up to 10 s later, that is inside a window).
 */
final class PgAdmin implements AutoCloseable {

    private final String url;
    private final String user;
    private final String db;
    private final Connection stats;

    PgAdmin(String host, int port, String db, String user) throws SQLException {
        this.url = "jdbc:postgresql://" + host + ":" + port + "/" + db;
        this.user = user;
        this.db = db;
        this.stats = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/postgres", user, null);
    }

    String url() {
        return url;
    }

    String db() {
        return db;
    }

    String serverVersion() throws SQLException {
        return one(stats, "SHOW server_version");
    }

    String setting(String name) throws SQLException {
        return one(stats, "SELECT setting FROM pg_settings WHERE name = '" + name + "'");
    }

    /** Tenure's schema (Flyway, once), db-scheduler's, ShedLock's and Quartz's tables (as their projects ship them). */
    void createSchemas() throws Exception {
        try (HikariDataSource ds = Pools.create(url, user, 2, false, "bench-migrate")) {
            TenureSchema.migrate(ds);
        }
        exec(
                "CREATE TABLE scheduled_tasks (task_name text NOT NULL, task_instance text NOT NULL, task_data bytea, "
                        + "execution_time timestamp with time zone NOT NULL, picked boolean NOT NULL, picked_by text, "
                        + "last_success timestamp with time zone, last_failure timestamp with time zone, consecutive_failures int, "
                        + "last_heartbeat timestamp with time zone, version bigint NOT NULL, priority smallint, "
                        + "PRIMARY KEY (task_name, task_instance))",
                "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
                "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
                "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)",
                "CREATE TABLE shedlock (name varchar(64) NOT NULL, lock_until timestamp NOT NULL, "
                        + "locked_at timestamp NOT NULL, locked_by varchar(255) NOT NULL, PRIMARY KEY (name))");
        String quartz;
        try (InputStream in =
                org.quartz.Scheduler.class.getResourceAsStream("/org/quartz/impl/jdbcjobstore/tables_postgres.sql")) {
            quartz = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> ddl = new ArrayList<>();
        for (String s : quartz.replaceAll("(?m)^--.*$", "").split(";")) {
            String t = s.trim();
            if (t.toUpperCase().startsWith("CREATE")) {
                ddl.add(t);
            }
        }
        exec(ddl.toArray(String[]::new));
    }

    /** A fresh business table for one scenario: one row per unit. */
    void createEffectTable(String table) throws SQLException {
        exec("CREATE TABLE " + table + " (id bigserial PRIMARY KEY, job text NOT NULL, fire text NOT NULL, "
                + "node int NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())");
    }

    /**
     * Tenure's ledger as a system that has been running finds it: the rows of earlier scenarios removed, a job row for
     * each of the {@code jobs} jobs and {@code historyPerJob} COMPLETED runs of each, then VACUUM ANALYZE. The planner
     * then sees tables of the size the window works on, as it would after autovacuum's first pass. Analyzing empty
     * tables instead (as up to commit 6be9541) made every pooled connection cache sequential-scan plans for the ledger's
     * point lookups in its first executions, kept for the whole row: autovacuum analyzes at most once a minute.
     */
    void resetTenure(int jobs, int historyPerJob) throws SQLException {
        exec(
                "TRUNCATE tenure.job_run, tenure.job_schedule_span, tenure.job_schedule_version, tenure.job_catch_up, "
                        + "tenure.job_schedule, tenure.job_execution, tenure.release_listener",
                "INSERT INTO tenure.job_execution (job_key, fencing_token) SELECT 'job-' || g, 1 FROM generate_series(0, "
                        + (jobs - 1) + ") g",
                "INSERT INTO tenure.job_run (run_id, job_key, fire_key, epoch, owner, status, started_at, finished_at) "
                        + "SELECT gen_random_uuid(), 'job-' || (g % " + jobs
                        + "), 'history-' || g, 1, 'bench-history', "
                        + "'COMPLETED', clock_timestamp(), clock_timestamp() FROM generate_series(1, "
                        + (long) jobs * historyPerJob + ") g",
                "VACUUM ANALYZE tenure.job_execution",
                "VACUUM ANALYZE tenure.job_run");
    }

    /** ShedLock's table as a running system finds it: one free row per lock name (as its first lock inserts), analyzed. */
    void resetShedLock(int jobs) throws SQLException {
        exec(
                "TRUNCATE shedlock",
                "INSERT INTO shedlock (name, lock_until, locked_at, locked_by) SELECT 'job-' || g, "
                        + "now() - interval '1 hour', now() - interval '1 hour', 'bench-history' FROM generate_series(0, "
                        + (jobs - 1) + ") g",
                "VACUUM ANALYZE shedlock");
    }

    /** {@code n} one-time executions of db-scheduler's bench task, all due now. */
    void dbSchedulerBacklog(int n) throws SQLException {
        exec(
                "TRUNCATE scheduled_tasks",
                "INSERT INTO scheduled_tasks (task_name, task_instance, task_data, execution_time, picked, version) "
                        + "SELECT '" + DbSchedulerWorkload.TASK
                        + "', 'i' || g, NULL, now(), false, 1 FROM generate_series(1, " + n + ") g",
                "VACUUM ANALYZE scheduled_tasks");
    }

    /** 1,000 durable Quartz jobs and {@code n} one-shot simple triggers over them, all due now. */
    void quartzBacklog(int n, int jobs) throws SQLException {
        long now = System.currentTimeMillis();
        exec(
                "DELETE FROM qrtz_fired_triggers",
                "DELETE FROM qrtz_simple_triggers",
                "DELETE FROM qrtz_triggers",
                "DELETE FROM qrtz_job_details",
                "DELETE FROM qrtz_scheduler_state",
                "DELETE FROM qrtz_locks",
                "INSERT INTO qrtz_job_details (sched_name, job_name, job_group, job_class_name, is_durable, is_nonconcurrent, "
                        + "is_update_data, requests_recovery) SELECT 'bench', 'job-' || g, 'bench', '"
                        + QuartzWorkload.BenchJob.class.getName()
                        + "', true, false, false, false FROM generate_series(0, " + (jobs - 1) + ") g",
                "INSERT INTO qrtz_triggers (sched_name, trigger_name, trigger_group, job_name, job_group, next_fire_time, "
                        + "prev_fire_time, priority, trigger_state, trigger_type, start_time, end_time, misfire_instr) "
                        + "SELECT 'bench', 't' || g, 'bench', 'job-' || (g % " + jobs + "), 'bench', " + now
                        + ", -1, 5, 'WAITING', "
                        + "'SIMPLE', " + now + ", 0, 0 FROM generate_series(1, " + n + ") g",
                "INSERT INTO qrtz_simple_triggers (sched_name, trigger_name, trigger_group, repeat_count, repeat_interval, "
                        + "times_triggered) SELECT 'bench', 't' || g, 'bench', 0, 0, 0 FROM generate_series(1, " + n
                        + ") g",
                "VACUUM ANALYZE qrtz_triggers",
                "VACUUM ANALYZE qrtz_simple_triggers",
                "VACUUM ANALYZE qrtz_job_details");
    }

    long count(String sql) throws SQLException {
        try (Connection c = admin()) {
            return Long.parseLong(one(c, sql));
        }
    }

    private Connection admin() throws SQLException {
        return DriverManager.getConnection(url, user, null);
    }

    /** Rows of the business table, and rows beyond the first for a (job, fire): effects that happened twice. */
    long[] effects(String table) throws SQLException {
        try (Connection c = admin();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT count(*), count(*) - count(DISTINCT (job, fire)) FROM " + table)) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    /**
     * Counters of the benchmark database ({@code pg_stat_database}) and of the cluster's WAL ({@code pg_stat_wal},
     * cluster-wide: other databases on the shared server write WAL too).
     */
    Map<String, Double> counters() throws SQLException {
        Map<String, Double> m = new LinkedHashMap<>();
        try (Statement s = stats.createStatement()) {
            try (ResultSet rs =
                    s.executeQuery("SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, "
                            + "tup_returned, tup_fetched, active_time FROM pg_stat_database WHERE datname = '" + db
                            + "'")) {
                rs.next();
                for (int i = 1; i <= 8; i++) {
                    m.put(rs.getMetaData().getColumnName(i), rs.getDouble(i));
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT wal_records, wal_bytes, wal_write, wal_sync FROM pg_stat_wal")) {
                rs.next();
                for (int i = 1; i <= 4; i++) {
                    m.put(rs.getMetaData().getColumnName(i), rs.getDouble(i));
                }
            }
        }
        return m;
    }

    /**
     * Waits (up to {@code seconds}) until no client backend is connected to the benchmark database: a backend reports
     * its last statistics when it exits, so after this the database's counters are complete.
     */
    boolean awaitNoBackends(double seconds) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < deadline) {
            if (Long.parseLong(one(
                            stats,
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = '" + db
                                    + "' AND backend_type = 'client backend'"))
                    == 0) {
                Thread.sleep(100); // the exiting backend's report is written just before it leaves the list
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    /**
     * The CPU seconds of {@link #backendPids} and of the processes of an earlier reading ({@code earlier}), by pid: a
     * backend that started since then counts from zero in {@link Proc#delta}, one that ended is left out.
     */
    Map<Long, Double> backendCpu(java.util.Collection<Long> earlier) throws SQLException {
        java.util.Set<Long> pids = new java.util.LinkedHashSet<>(earlier);
        pids.addAll(backendPids());
        return Proc.cpuByPid(pids);
    }

    /** Server processes serving the benchmark database (client backends), plus the WAL writer. */
    List<Long> backendPids() throws SQLException {
        List<Long> pids = new ArrayList<>();
        try (Statement s = stats.createStatement();
                ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE (datname = '" + db
                        + "' AND backend_type = 'client backend') OR backend_type = 'walwriter'")) {
            while (rs.next()) {
                pids.add(rs.getLong(1));
            }
        }
        return pids;
    }

    private void exec(String... sql) throws SQLException {
        try (Connection c = admin();
                Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public void close() throws SQLException {
        stats.close();
    }
}
