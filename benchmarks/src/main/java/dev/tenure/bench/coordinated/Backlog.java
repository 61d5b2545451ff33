package dev.tenure.bench.coordinated;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.db.TenureSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The sweeper after a long outage of the whole fleet ("Schedules are data", acceptance 2): N jobs on a fixed rate whose
 * positions stand D days back, as the outage left them; one process registers them and sweeps with the default policy
 * (catch up the newest 10 fires of each job, none older than an hour). It measures when the first sweep makes progress,
 * when every position is current (every fire due before the outage's end is settled: caught up, MISSED with a row, or
 * counted in a summary), the rows written to {@code job_run}, the sweeper's statements by kind, and the CPU of the
 * Postgres backends, the sweeper and the catch-up thread.
 */
final class Backlog {

    private Backlog() {}

    record Result(
            int jobs,
            Duration days,
            Duration rate,
            long fires,
            double firstProgressSeconds,
            double currentSeconds,
            double catchUpsSeconds,
            long caughtUp,
            long rows,
            long summaries,
            Map<String, Long> kinds,
            double pgCpu,
            double sweeperCpu,
            double catchUpCpu,
            String load) {
        @Override
        public String toString() {
            long sweeperStatements = kinds.entrySet().stream()
                    .filter(e -> !e.getKey().equals("other"))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
            return String.format(
                    Locale.ROOT,
                    "backlog: %d jobs every %s, %s behind (%,d fires); load %s%n"
                            + "first progress %.1f s, every position current %.1f s, catch-ups done %.1f s%n"
                            + "caught up %d (%.1f per job), job_run rows written %d (%.1f per job, %d summary records)%n"
                            + "sweeper statements %d %s, run statements (catch-ups) %d%n"
                            + "Postgres CPU %.1f s (%.2f us per fire), sweeper thread %.1f s, catch-up thread %.1f s",
                    jobs,
                    rate,
                    days,
                    fires,
                    load,
                    firstProgressSeconds,
                    currentSeconds,
                    catchUpsSeconds,
                    caughtUp,
                    (double) caughtUp / jobs,
                    rows,
                    (double) rows / jobs,
                    summaries,
                    sweeperStatements,
                    kinds,
                    kinds.getOrDefault("other", 0L),
                    pgCpu,
                    pgCpu * 1e6 / Math.max(1, fires),
                    sweeperCpu,
                    catchUpCpu);
        }
    }

    static Result run(String url, String user, int jobs, Duration days, Duration rate, Duration sweep)
            throws Exception {
        String pool = "bench-backlog";
        try (Connection admin = DriverManager.getConnection(url, user, null);
                Statement s = admin.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS tenure CASCADE");
            s.execute("DROP TABLE IF EXISTS bench_caught_up");
            s.execute("CREATE TABLE bench_caught_up (job text NOT NULL, fire_key text NOT NULL, "
                    + "PRIMARY KEY (job, fire_key))");
        }
        SweepBenchmark.Counts counts = new SweepBenchmark.Counts();
        try (HikariDataSource tenurePool = Pools.create(url, user, 8, false, pool);
                HikariDataSource driverPool = Pools.create(url, user, 2, false, "bench-driver")) {
            TenureSchema.migrate(driverPool);
            Instant end;
            try (Connection c = driverPool.getConnection();
                    Statement st = c.createStatement()) {
                try (ResultSet r = st.executeQuery("SELECT to_char(to_timestamp(floor(extract(epoch FROM "
                        + "clock_timestamp()) / " + rate.toSeconds() + ") * " + rate.toSeconds()
                        + ") AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")) {
                    r.next();
                    end = Instant.parse(r.getString(1));
                }
                // the schedules as an outage of the whole fleet left them: positions `days` back
                st.execute("INSERT INTO tenure.job_execution (job_key) SELECT 'backlog-' || i "
                        + "FROM generate_series(0, " + (jobs - 1) + ") i");
                st.execute("INSERT INTO tenure.job_schedule (job_key, kind, expression, policy, integration, "
                        + "registered_by, swept_until, seen_at, check_at) SELECT 'backlog-' || i, 'fixed-rate', '"
                        + rate + "', 'catch-up', 'coordinator', 'gone', '" + end.minus(days) + "', "
                        + "clock_timestamp(), clock_timestamp() FROM generate_series(0, " + (jobs - 1) + ") i");
                st.execute("ANALYZE tenure.job_schedule; ANALYZE tenure.job_execution");
            }
            long fires = jobs * days.dividedBy(rate);
            Tenure tenure = Tenure.builder()
                    .dataSource(counts.wrap(tenurePool))
                    .migrateSchema(false)
                    .sweepInterval(sweep)
                    .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(10)))
                    .build();
            try (tenure) {
                List<Long> pids = backends(driverPool, pool);
                Map<Long, Double> pg0 = Proc.cpuByPid(pids);
                Map<String, Double> threads0 =
                        Proc.threadCpu(ProcessHandle.current().pid());
                Map<String, Long> k0 = counts.snapshot();
                long started = System.nanoTime();
                for (int i = 0; i < jobs; i++) {
                    String job = "backlog-" + i;
                    tenure.register(ScheduledJob.of(
                            job,
                            Schedule.fixedRate(rate),
                            fire -> tenure.coordinator()
                                    .run(
                                            job,
                                            fire,
                                            RunPolicy.waitUpTo(Duration.ofSeconds(10)),
                                            ctx -> ctx.completeInTransaction(tenurePool, c -> {
                                                try (PreparedStatement ps = c.prepareStatement(
                                                        "INSERT INTO bench_caught_up VALUES (?, ?)")) {
                                                    ps.setString(1, job);
                                                    ps.setString(2, fire);
                                                    return ps.executeUpdate();
                                                }
                                            }))));
                }
                double firstProgress = -1;
                double current = -1;
                double catchUps = -1;
                long deadline = started + Duration.ofMinutes(10).toNanos();
                while (System.nanoTime() < deadline && (current < 0 || catchUps < 0)) {
                    Thread.sleep(250);
                    double t = (System.nanoTime() - started) / 1e9;
                    if (firstProgress < 0
                            && count(
                                            driverPool,
                                            "SELECT count(*) FROM tenure.job_schedule WHERE swept_until > '"
                                                    + end.minus(days) + "'")
                                    > 0) {
                        firstProgress = t;
                    }
                    if (current < 0
                            && count(
                                            driverPool,
                                            "SELECT count(*) FROM tenure.job_schedule WHERE swept_until >= '" + end
                                                    + "'")
                                    == jobs) {
                        current = t;
                    }
                    // every job ran its newest 10 overdue fires (one of them may be a fire due after the outage's end,
                    // if a minute began while the sweeps went on)
                    if (catchUps < 0
                            && count(
                                            driverPool,
                                            "SELECT count(*) FROM (SELECT job FROM bench_caught_up GROUP BY job "
                                                    + "HAVING count(*) >= 10) x")
                                    == jobs) {
                        catchUps = t;
                    }
                }
                pids = backends(driverPool, pool);
                double pg = Proc.delta(pg0, Proc.cpuByPid(pids));
                Map<String, Double> threads =
                        Proc.threadCpu(ProcessHandle.current().pid());
                double sweeper =
                        threads.getOrDefault("tenure-sweeper", 0.0) - threads0.getOrDefault("tenure-sweeper", 0.0);
                double catchUp =
                        threads.getOrDefault("tenure-catch-up", 0.0) - threads0.getOrDefault("tenure-catch-up", 0.0);
                Map<String, Long> kinds = counts.since(k0);
                long caughtUp = count(driverPool, "SELECT count(*) FROM bench_caught_up");
                long rows = count(driverPool, "SELECT count(*) FROM tenure.job_run");
                long summaries = count(driverPool, "SELECT count(*) FROM tenure.job_run WHERE fire_key LIKE '%..%'");
                return new Result(
                        jobs,
                        days,
                        rate,
                        fires,
                        firstProgress,
                        current,
                        catchUps,
                        caughtUp,
                        rows,
                        summaries,
                        kinds,
                        pg,
                        sweeper,
                        catchUp,
                        Proc.loadAverage());
            }
        }
    }

    private static long count(DataSource ds, String sql) throws Exception {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    private static List<Long> backends(DataSource ds, String applicationName) throws Exception {
        List<Long> pids = new ArrayList<>();
        try (Connection c = ds.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT pid FROM pg_stat_activity WHERE application_name = ?")) {
            ps.setString(1, applicationName);
            try (ResultSet r = ps.executeQuery()) {
                while (r.next()) {
                    pids.add(r.getLong(1));
                }
            }
        }
        return pids;
    }
}
