package dev.tenure.bench.coordinated;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.bench.Options;
import dev.tenure.db.TenureSchema;
import java.lang.reflect.Proxy;
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
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * The cost of Tenure's sweeper (issue 21, acceptance 5): N jobs registered on one fixed-rate schedule, one Tenure (the
 * database mode) sweeping them, on the benchmark's own database (created and dropped by {@code run-sweeper.sh}). Two
 * scenarios per N: <em>healthy</em> (another connection completes every fire right after it is due, as running nodes
 * would) and <em>outage</em> (nobody runs anything; policy SKIP records every fire MISSED). Over a window of whole
 * schedule periods it counts the sweeper's statements by kind (client side, on Tenure's own pool), the CPU of the
 * Postgres backends serving that pool ({@code /proc}), and the CPU of the {@code tenure-sweeper} thread.
 */
public final class SweepBenchmark {

    private static final String USAGE = """
            usage: SweepBenchmark --db NAME [--pg-host H --pg-port P --pg-user U] [--jobs 1000,10000]
                                  [--rate-seconds 10] [--periods 3] [--sweep-ms 1000]
                                  [--backlog-jobs 1000 --backlog-days 8 --backlog-rate-seconds 60]
            """;

    public static void main(String[] args) throws Exception {
        Map<String, String> a;
        try {
            a = Options.parse(args);
        } catch (IllegalArgumentException e) {
            a = Map.of();
        }
        if (!a.containsKey("--db")) {
            System.err.print(USAGE);
            System.exit(2);
        }
        String url = "jdbc:postgresql://" + a.getOrDefault("--pg-host", "127.0.0.1") + ":"
                + a.getOrDefault("--pg-port", "5432") + "/" + a.get("--db");
        String user = a.getOrDefault("--pg-user", "postgres");
        Duration rate = Duration.ofSeconds(Long.parseLong(a.getOrDefault("--rate-seconds", "10")));
        int periods = Integer.parseInt(a.getOrDefault("--periods", "3"));
        Duration sweep = Duration.ofMillis(Long.parseLong(a.getOrDefault("--sweep-ms", "1000")));
        if (a.containsKey("--backlog-jobs")) {
            Backlog.Result r = Backlog.run(
                    url,
                    user,
                    Integer.parseInt(a.get("--backlog-jobs")),
                    Duration.ofDays(Long.parseLong(a.getOrDefault("--backlog-days", "8"))),
                    Duration.ofSeconds(Long.parseLong(a.getOrDefault("--backlog-rate-seconds", "60"))),
                    sweep);
            System.out.println();
            System.out.println(r);
            return;
        }
        List<Row> rows = new ArrayList<>();
        for (String n : a.getOrDefault("--jobs", "1000,10000").split(",")) {
            for (boolean healthy : new boolean[] {true, false}) {
                rows.add(run(url, user, Integer.parseInt(n.trim()), healthy, rate, periods, sweep));
            }
        }
        System.out.println();
        System.out.printf(
                Locale.ROOT,
                "sweeper cost: fixed rate %s, sweep every %s, window of %d periods; load %s%n",
                rate,
                sweep,
                periods,
                Proc.loadAverage());
        System.out.println(
                "(sweeps: window / sweep interval; statements counted on Tenure's pool, election renewals in 'other')");
        System.out.println(
                "jobs   scenario  sweeps  fires/window  stmts/sweep  read-pos/sweep  states/sweep  missed/sweep  "
                        + "write/sweep  other/sweep  pg-cpu-ms/sweep  pg-cpu-us/fire  sweeper-cpu-ms/sweep  register-s");
        for (Row r : rows) {
            System.out.println(r);
        }
    }

    record Row(
            int jobs,
            String scenario,
            long sweeps,
            long fires,
            Map<String, Long> kinds,
            double pgCpu,
            double sweeperCpu,
            double registerSeconds) {
        @Override
        public String toString() {
            double s = Math.max(1, sweeps);
            long all = kinds.values().stream().mapToLong(Long::longValue).sum();
            return String.format(
                    Locale.ROOT,
                    "%-6d %-9s %6d  %12d  %11.2f  %14.2f  %12.2f  %12.2f  %11.2f  %11.2f  %15.2f  %14.2f  %20.2f  %10.1f",
                    jobs,
                    scenario,
                    sweeps,
                    fires,
                    all / s,
                    kinds.getOrDefault("read-pos", 0L) / s,
                    kinds.getOrDefault("states", 0L) / s,
                    kinds.getOrDefault("missed", 0L) / s,
                    kinds.getOrDefault("write", 0L) / s,
                    kinds.getOrDefault("other", 0L) / s,
                    pgCpu * 1000 / s,
                    fires == 0 ? 0 : pgCpu * 1e6 / fires,
                    sweeperCpu * 1000 / s,
                    registerSeconds);
        }
    }

    private static Row run(
            String url, String user, int jobs, boolean healthy, Duration rate, int periods, Duration sweep)
            throws Exception {
        String pool = "bench-sweeper";
        try (Connection admin = DriverManager.getConnection(url, user, null);
                Statement s = admin.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS tenure CASCADE");
        }
        Counts counts = new Counts();
        try (HikariDataSource tenurePool = Pools.create(url, user, 4, false, pool);
                HikariDataSource driverPool = Pools.create(url, user, 2, false, "bench-driver")) {
            TenureSchema.migrate(driverPool);
            long registerStart = System.nanoTime();
            Tenure tenure = Tenure.builder()
                    .dataSource(counts.wrap(tenurePool))
                    .migrateSchema(false)
                    .sweepInterval(sweep)
                    .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(10)))
                    .build();
            try (tenure) {
                MissedFirePolicy policy = MissedFirePolicy.skip().withGrace(Duration.ofSeconds(2));
                List<ScheduledJob> all = new ArrayList<>(jobs);
                for (int i = 0; i < jobs; i++) {
                    all.add(ScheduledJob.of("bench-" + i, Schedule.fixedRate(rate), fire -> {})
                            .withPolicy(policy));
                }
                tenure.registerAll(all);
                double registerSeconds = (System.nanoTime() - registerStart) / 1e9;
                try (Statement st = driverPool.getConnection().createStatement()) {
                    st.execute("ANALYZE tenure.job_schedule; ANALYZE tenure.job_execution; ANALYZE tenure.job_run");
                }
                Driver driver = new Driver(driverPool, jobs, rate, healthy);
                driver.start();
                // one whole period before the window: the first term's positions are read, steady state begins
                Instant start =
                        Instant.ofEpochMilli((System.currentTimeMillis() / rate.toMillis() + 2) * rate.toMillis());
                sleepUntil(start);
                List<Long> pids = backends(driverPool, pool);
                Map<Long, Double> pg0 = Proc.cpuByPid(pids);
                double sw0 = sweeperCpu();
                Map<String, Long> k0 = counts.snapshot();
                long fires0 = firesSettled(driverPool);
                sleepUntil(start.plus(rate.multipliedBy(periods)));
                double pg = Proc.delta(pg0, Proc.cpuByPid(pids));
                double sw = sweeperCpu() - sw0;
                Map<String, Long> kinds = counts.since(k0);
                long fires = firesSettled(driverPool) - fires0;
                driver.stop();
                // sweeps run with a fixed delay of the interval: the window holds about window / interval of them
                long sweeps = Math.round((double) rate.multipliedBy(periods).toMillis() / sweep.toMillis());
                return new Row(jobs, healthy ? "healthy" : "outage", sweeps, fires, kinds, pg, sw, registerSeconds);
            }
        }
    }

    /** Fires accounted for: COMPLETED (by the driver) or MISSED (by the sweeper). */
    private static long firesSettled(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery("SELECT count(*) FROM tenure.job_run WHERE status IN ('COMPLETED', 'MISSED')")) {
            r.next();
            return r.getLong(1);
        }
    }

    private static double sweeperCpu() {
        return Proc.threadCpu(ProcessHandle.current().pid()).getOrDefault("tenure-sweeper", 0.0);
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

    private static void sleepUntil(Instant t) throws InterruptedException {
        long ms = Duration.between(Instant.now(), t).toMillis();
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    /** Completes every job's fire 200 ms after it is due (healthy), or does nothing (outage). */
    private static final class Driver {
        private final DataSource ds;
        private final int jobs;
        private final Duration rate;
        private final boolean healthy;
        private volatile boolean stopped;
        private Thread thread;

        Driver(DataSource ds, int jobs, Duration rate, boolean healthy) {
            this.ds = ds;
            this.jobs = jobs;
            this.rate = rate;
            this.healthy = healthy;
        }

        void start() {
            if (!healthy) {
                return;
            }
            thread = new Thread(
                    () -> {
                        try {
                            while (!stopped) {
                                long next = (System.currentTimeMillis() / rate.toMillis() + 1) * rate.toMillis();
                                Thread.sleep(Math.max(0, next + 200 - System.currentTimeMillis()));
                                complete(Instant.ofEpochMilli(next).toString());
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } catch (Exception e) {
                            e.printStackTrace();
                        }
                    },
                    "bench-driver");
            thread.setDaemon(true);
            thread.start();
        }

        private void complete(String fire) throws Exception {
            try (Connection c = ds.getConnection();
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO tenure.job_run (run_id, job_key, fire_key, epoch, owner, status, finished_at) "
                                    + "SELECT gen_random_uuid(), 'bench-' || i, ?, 1, 'driver', 'COMPLETED', clock_timestamp() "
                                    + "FROM generate_series(0, ? - 1) i ON CONFLICT DO NOTHING")) {
                ps.setString(1, fire);
                ps.setInt(2, jobs);
                ps.executeUpdate();
            }
        }

        void stop() throws InterruptedException {
            stopped = true;
            if (thread != null) {
                thread.interrupt();
                thread.join();
            }
        }
    }

    /** Statement executions on Tenure's pool, by what they are. */
    static final class Counts {
        private final Map<String, LongAdder> byKind = new ConcurrentHashMap<>();

        Map<String, Long> snapshot() {
            Map<String, Long> m = new TreeMap<>();
            byKind.forEach((k, v) -> m.put(k, v.sum()));
            return m;
        }

        Map<String, Long> since(Map<String, Long> before) {
            Map<String, Long> m = snapshot();
            m.replaceAll((k, v) -> v - before.getOrDefault(k, 0L));
            return m;
        }

        static String kind(String sql) {
            if (sql.startsWith("WITH t AS (SELECT clock_timestamp() AS now)")) {
                return "read-pos";
            }
            if (sql.contains("WITH ORDINALITY") || sql.contains("r.started_at >= q.since")) {
                return "states";
            }
            if (sql.contains("job_catch_up")) {
                return "catch-up";
            }
            if (sql.startsWith("SELECT set_config('lock_timeout'")
                    || sql.contains("FOR NO KEY UPDATE SKIP LOCKED")
                    || sql.contains("SKIP LOCKED")
                    || sql.contains("r.fire_key = q.fire_key")
                    || sql.contains("'MISSED', clock_timestamp()")
                    || sql.contains("AS m(job_key, epoch)")) {
                return "missed";
            }
            if (sql.startsWith("UPDATE") && sql.contains("job_schedule AS s SET swept_until")) {
                return "write";
            }
            return "other";
        }

        DataSource wrap(DataSource target) {
            return (DataSource) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, args) -> {
                        Object r = m.invoke(target, args);
                        return r instanceof Connection c ? connection(c) : r;
                    });
        }

        private Connection connection(Connection c) {
            return (Connection) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Connection.class}, (p, m, args) -> {
                        Object r;
                        try {
                            r = m.invoke(c, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                        if (r instanceof PreparedStatement ps && args != null && args[0] instanceof String sql) {
                            return statement(ps, kind(sql));
                        }
                        return r;
                    });
        }

        private PreparedStatement statement(PreparedStatement ps, String kind) {
            return (PreparedStatement) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {PreparedStatement.class}, (p, m, args) -> {
                        if (m.getName().startsWith("execute")) {
                            byKind.computeIfAbsent(kind, k -> new LongAdder()).increment();
                        }
                        try {
                            return m.invoke(ps, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
