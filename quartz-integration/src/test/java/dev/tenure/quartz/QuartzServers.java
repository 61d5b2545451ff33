package dev.tenure.quartz;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.PostgresSource;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.impl.StdSchedulerFactory;

/**
 * The servers of a Quartz test class: a standalone Valkey and the class's own database with Tenure's schema,
 * Quartz's tables (for the clustered JDBC job store) and the nodes' {@code quartz_exec} and {@code quartz_control}.
 */
final class QuartzServers implements AutoCloseable {

    final ValkeyServer valkey;
    final PostgresDatabase db;
    private final List<JvmProcess> nodes = new ArrayList<>();

    QuartzServers(Class<?> testClass, PostgresSource source) throws SQLException, IOException {
        valkey = ValkeyServers.standalone();
        db = source == null ? PostgresDatabases.forClass(testClass) : PostgresDatabases.forClass(testClass, source);
        TenureSchema.migrate(db.dataSource());
        try (InputStream in = Thread.currentThread()
                .getContextClassLoader()
                .getResourceAsStream("org/quartz/impl/jdbcjobstore/tables_postgres.sql")) {
            execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        execute(
                "CREATE TABLE quartz_exec (job text NOT NULL, slot text NOT NULL, node text NOT NULL, epoch bigint NOT NULL, "
                        + "at timestamptz NOT NULL DEFAULT clock_timestamp())");
        execute("CREATE TABLE quartz_control (stall boolean NOT NULL); INSERT INTO quartz_control VALUES (false)");
    }

    /** Starts a {@link QuartzNode} process; closed with this fixture. */
    JvmProcess node(String name, String store, String style, String job, long ttlMillis) {
        JvmProcess p = JvmProcess.start(
                QuartzNode.class,
                name,
                store,
                style,
                job,
                Integer.toString(valkey.port()),
                db.jdbcUrl(),
                db.username(),
                db.password() == null || db.password().isEmpty() ? "-" : db.password(),
                Long.toString(ttlMillis));
        nodes.add(p);
        return p;
    }

    /** A new in-process Tenure on these servers (Valkey mode, lease TTL {@code ttl}); the caller closes it. */
    Tenure tenure(Duration ttl) {
        return Tenure.builder()
                .dataSource(db.dataSource())
                .valkey(ValkeyConfig.standalone("127.0.0.1:" + valkey.port())
                        .requestTimeout(Duration.ofMillis(300))
                        .build())
                .mode(JobCoordinator.Mode.VALKEY)
                .leaseDefaults(LeaseOptions.ofTtl(ttl))
                .build();
    }

    /** A new in-process scheduler on a RAMJobStore (two worker threads), not started; the caller shuts it down. */
    static Scheduler ramScheduler(String name) throws SchedulerException {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", name);
        p.setProperty("org.quartz.threadPool.threadCount", "2");
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        return new StdSchedulerFactory(p).getScheduler();
    }

    void execute(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** Executions of {@code job} per slot (scheduled fire time), in slot order. */
    Map<Instant, Integer> executionsPerSlot(String job) throws SQLException {
        Map<Instant, Integer> slots = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection();
                var ps = c.prepareStatement("SELECT slot, count(*) FROM quartz_exec WHERE job = ? GROUP BY slot")) {
            ps.setString(1, job);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    slots.put(Instant.parse(rs.getString(1)), rs.getInt(2));
                }
            }
        }
        return slots;
    }

    /** Executions per node, for the report. */
    Map<String, Integer> executionsPerNode() throws SQLException {
        Map<String, Integer> nodes = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT node, count(*) FROM quartz_exec GROUP BY node")) {
            while (rs.next()) {
                nodes.put(rs.getString(1), rs.getInt(2));
            }
        }
        return nodes;
    }

    /** The ledger status of one fire of a job, or null if it has no run row. */
    String runStatus(String jobKey, String fireKey) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                var ps = c.prepareStatement("SELECT status FROM tenure.job_runs WHERE job_key = ? AND fire_key = ?")) {
            ps.setString(1, jobKey);
            ps.setString(2, fireKey);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Override
    public void close() {
        nodes.forEach(JvmProcess::close);
        db.close();
        valkey.close();
    }
}
