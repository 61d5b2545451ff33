package dev.tenure.bench.coordinated;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.Scheduler;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.utils.ConnectionProvider;

/**
 * A clustered Quartz JDBC job store (JobStoreTX, PostgreSQLDelegate, {@code isClustered=true}), one scheduler per node
 * (three JVMs), {@code threads} worker threads, trigger acquisition in batches of up to {@code threads} inside the
 * lock ({@code batchTriggerAcquisitionMaxCount}, {@code acquireTriggersWithinLock}: Quartz's documented throughput
 * settings), misfire threshold 10 min so the backlog is fired, not misfired. The backlog: one-shot simple triggers,
 * all due, over 1,000 durable jobs ({@link CoordinatedBenchmark} inserts them). The job inserts the business row
 * (autocommit). A unit is one fire whose business row committed.
 */
final class QuartzWorkload implements Node.Workload {

    /** Quartz builds its connection provider by class name; it finds the node's pool here. */
    static volatile DataSource dataSource;

    static volatile Node node;
    static volatile Tally tally;
    private final Node n;
    private Scheduler scheduler;

    QuartzWorkload(Node n) {
        this.n = n;
    }

    @Override
    public void prepare() throws Exception {
        dataSource = n.ds;
        node = n;
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", "bench");
        p.setProperty("org.quartz.scheduler.instanceId", "node-" + n.node);
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        p.setProperty("org.quartz.scheduler.batchTriggerAcquisitionMaxCount", Integer.toString(n.threads));
        p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(n.threads));
        p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
        p.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
        p.setProperty("org.quartz.jobStore.dataSource", "bench");
        p.setProperty("org.quartz.jobStore.isClustered", "true");
        p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
        p.setProperty("org.quartz.jobStore.misfireThreshold", "600000");
        p.setProperty("org.quartz.dataSource.bench.connectionProvider.class", Connections.class.getName());
        scheduler = new StdSchedulerFactory(p).getScheduler();
    }

    @Override
    public void run(Tally t) throws Exception {
        tally = t;
        scheduler.start();
        Tally.sleepUntil(t.end() + Tally.GRACE_NANOS);
    }

    @Override
    public void close() throws Exception {
        if (scheduler != null) {
            scheduler.shutdown(true);
        }
    }

    /** The trivial job: one business row. */
    public static final class BenchJob implements Job {
        @Override
        public void execute(JobExecutionContext ctx) throws JobExecutionException {
            Node nd = node;
            try (Connection c = dataSource.getConnection();
                    PreparedStatement ps = c.prepareStatement(nd.insertSql())) {
                ps.setString(1, ctx.getJobDetail().getKey().getName());
                ps.setString(2, ctx.getTrigger().getKey().getName());
                ps.setInt(3, nd.node);
                ps.executeUpdate();
            } catch (SQLException e) {
                throw new JobExecutionException(e);
            }
            Tally t = tally;
            if (t != null) {
                t.units.increment();
            }
        }
    }

    /** Quartz's connection provider over the node's (counting) pool. */
    public static final class Connections implements ConnectionProvider {
        @Override
        public Connection getConnection() throws SQLException {
            return dataSource.getConnection();
        }

        @Override
        public void shutdown() {}

        @Override
        public void initialize() {}
    }
}
