package dev.tenure.bench.coordinated;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.DriverDataSource;
import dev.tenure.JobCoordinator;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.bench.Format;
import dev.tenure.bench.Options;
import dev.tenure.bench.ValkeyAdmin;
import dev.tenure.db.PoolConfig;
import dev.tenure.db.TenureDataSources;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A profile of the Postgres side of one coordinated unit (issue 23, item 3): in one process and one thread, a fixed
 * number of the units {@link CoordinatedBenchmark}'s rows run ({@link TenureWorkload}, {@link DbSchedulerWorkload},
 * {@link ShedLockWorkload}), on the database run-coordinated.sh creates. Per row and per unit: the statement texts and
 * their executions, round trips on the wire, JDBC calls above and below the pool, commits, WAL bytes and records, and
 * the CPU of the Postgres backends; then the plan of each statement with the parameters of a real execution. With
 * one client, the database's counters are the row's own.
 */
public final class PgProfile {

    private static final String USAGE = """
            usage: PgProfile --db NAME --valkey-port P [options]   (run through benchmarks/run-pg-profile.sh)
              --pg-host H --pg-port P --pg-user U   Postgres (default 127.0.0.1 5432 postgres; trust auth)
              --db NAME            the profiled database (created and dropped by run-coordinated.sh)
              --valkey-port P      the private valkey-server (never 6379); --valkey-pid PID (unused, accepted)
              --units N            measured units per row (default 2000), after --warmup N units (default 2000: the first row otherwise pays for the JIT)
              --jobs N             distinct jobs / lock names (default 1000); --history-per-job N (default 100), as the
                                   coordinated benchmark sets its tables up
              --settle S           idle seconds before each reading of Postgres' statistics (default 11: an idle
                                   backend reports its pending statistics after 10 s)
              --explain-units N    at most N more units per row to take the plans in (default 30)
              --dbscheduler-threads N  db-scheduler's executor threads (default 1; it fetches up to N due executions
                                   per poll)
              --only REGEX         rows whose name contains a match (default: all five)
            """;

    /** The five rows: a name, a kind and the Tenure options. */
    record Spec(String name, String kind, boolean valkey, boolean oneTransaction) {}

    static final List<Spec> ROWS = List.of(
            new Spec("tenure-db runInTransaction", "tenure", false, true),
            new Spec("tenure-db run + completeInTransaction", "tenure", false, false),
            new Spec("tenure-valkey runInTransaction", "tenure", true, true),
            new Spec("db-scheduler", "dbscheduler", false, false),
            new Spec("shedlock jdbc", "shedlock", false, false));

    private String pgHost = "127.0.0.1";
    private int pgPort = 5432;
    private String pgUser = "postgres";
    private String db;
    private int valkeyPort = -1;
    private int units = 2000;
    private int warmup = 2000;
    private int jobs = 1000;
    private int historyPerJob = 100;
    private double settle = 11;
    private int explainUnits = 30;
    private int dbSchedulerThreads = 1;
    private Pattern only;

    public static void main(String[] args) throws Exception {
        PgProfile p = new PgProfile();
        try {
            p.parse(args);
        } catch (RuntimeException e) {
            System.err.println("error: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        }
        // The idle settles would make the pool validate each connection on its next borrow (isValid: a round trip and
        // an empty transaction that pg_stat_database counts as a commit), which the benchmark's busy pools never do.
        if (System.getProperty("com.zaxxer.hikari.aliveBypassWindowMs") == null) {
            System.setProperty(
                    "com.zaxxer.hikari.aliveBypassWindowMs", Long.toString((long) (p.settle * 1000) + 60_000));
        }
        p.run();
        System.out.flush();
        System.exit(0);
    }

    private void parse(String[] a) {
        for (Map.Entry<String, String> o : Options.parse(a).entrySet()) {
            String k = o.getKey();
            String v = o.getValue();
            switch (k) {
                case "--pg-host" -> pgHost = v;
                case "--pg-port" -> pgPort = Integer.parseInt(v);
                case "--pg-user" -> pgUser = v;
                case "--db" -> db = v;
                case "--valkey-port" -> valkeyPort = Integer.parseInt(v);
                case "--valkey-pid" -> {}
                case "--units" -> units = Integer.parseInt(v);
                case "--warmup" -> warmup = Integer.parseInt(v);
                case "--jobs" -> jobs = Integer.parseInt(v);
                case "--history-per-job" -> historyPerJob = Integer.parseInt(v);
                case "--settle" -> settle = Double.parseDouble(v);
                case "--explain-units" -> explainUnits = Integer.parseInt(v);
                case "--dbscheduler-threads" -> dbSchedulerThreads = Integer.parseInt(v);
                case "--only" -> only = Pattern.compile(v);
                default -> throw new IllegalArgumentException("unknown option " + k);
            }
        }
        if (db == null) {
            throw new IllegalArgumentException("--db is required");
        }
        if (valkeyPort <= 0 || valkeyPort == 6379) {
            throw new IllegalArgumentException("--valkey-port of a private server is required (never 6379)");
        }
        if (units < 1 || warmup < 0) {
            throw new IllegalArgumentException("--units must be at least 1 and --warmup at least 0");
        }
    }

    private void run() throws Exception {
        String statsUrl = "jdbc:postgresql://" + pgHost + ":" + pgPort + "/postgres";
        PlanCapture plans = new PlanCapture();
        List<ProfileReport.Result> results = new ArrayList<>();
        try (PgAdmin pg = new PgAdmin(pgHost, pgPort, db, pgUser);
                ValkeyAdmin valkey = new ValkeyAdmin("127.0.0.1", valkeyPort);
                Connection stats = DriverManager.getConnection(statsUrl, pgUser, null)) {
            System.out.println("== Tenure: a Postgres-side profile of one coordinated unit ==");
            System.out.println("postgres   " + pgHost + ":" + pgPort + " " + pg.serverVersion() + ", database " + db
                    + " (created for this run); synchronous_commit=" + pg.setting("synchronous_commit")
                    + " plan_cache_mode=" + pg.setting("plan_cache_mode") + " wal_level=" + pg.setting("wal_level")
                    + " full_page_writes=" + pg.setting("full_page_writes"));
            System.out.println(
                    "valkey     127.0.0.1:" + valkeyPort + " " + valkey.serverField("valkey_version") + " (private)");
            System.out.println("jvm        " + System.getProperty("java.vm.name") + " "
                    + System.getProperty("java.runtime.version"));
            System.out.println("libraries  " + Format.libVersions());
            System.out.println("run        one process, one thread (db-scheduler: " + dbSchedulerThreads
                    + " executor thread(s)), "
                    + warmup + " warm-up units then " + units + " measured units per row, " + jobs + " jobs, "
                    + historyPerJob + " COMPLETED runs per job in Tenure's ledger, statistics read after " + settle
                    + " s idle, load " + Proc.loadAverage());
            System.out.println();
            pg.createSchemas();
            String walinspect = walinspect(pg.url());
            long dbOid = Long.parseLong(one(stats, "SELECT oid FROM pg_database WHERE datname = '" + db + "'"));
            int index = 0;
            for (Spec spec : ROWS) {
                if (only != null && !only.matcher(spec.name()).find()) {
                    continue;
                }
                index++;
                try {
                    ProfileReport.Result r = profile(pg, stats, valkey, plans, spec, "effect_" + index, dbOid);
                    results.add(r);
                    ProfileReport.printRow(r, walinspect);
                } catch (Exception e) {
                    System.out.println("# " + spec.name() + " FAILED: " + Node.oneLine(e.toString()));
                    e.printStackTrace(System.out);
                }
            }
        }
        ProfileReport.printSummary(results);
        ProfileReport.printPlans(plans);
    }

    /** Installs pg_walinspect in the profiled database; null when it worked, else why not. */
    private String walinspect(String url) {
        try (Connection c = DriverManager.getConnection(url, pgUser, null);
                java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
            return null;
        } catch (SQLException e) {
            return Node.oneLine(e.getMessage());
        }
    }

    private ProfileReport.Result profile(
            PgAdmin pg, Connection stats, ValkeyAdmin valkey, PlanCapture plans, Spec spec, String table, long dbOid)
            throws Exception {
        pg.createEffectTable(table);
        switch (spec.kind()) {
            case "tenure" -> pg.resetTenure(jobs, historyPerJob);
            case "dbscheduler" -> pg.dbSchedulerBacklog(warmup + units + explainUnits + 100);
            default -> pg.resetShedLock(jobs);
        }
        pg.awaitNoBackends(10);
        RecordingDataSource library = new RecordingDataSource("library");
        RecordingDataSource driver = new RecordingDataSource("driver");
        int threads = spec.kind().equals("dbscheduler") ? dbSchedulerThreads : 1;
        ProfileWindow w = new ProfileWindow(stats, db, settle, library, driver, spec.valkey() ? valkey : null);
        Map<String, Long> outcomes = new TreeMap<>();
        Map<String, long[]> serverPlans;
        String noSlot = w.reserveWal("pgprof_" + ProcessHandle.current().pid() + "_" + table);
        try {
            try (HikariDataSource pool = pool(pg.url(), threads + 3, "pgprof-" + table, driver)) {
                DataSource ds = library.wrap(pool);
                String insert = "INSERT INTO " + table + " (job, fire, node) VALUES (?, ?, ?)";
                if (spec.kind().equals("dbscheduler")) {
                    dbScheduler(ds, insert, threads, w, driver, plans, spec.name(), outcomes);
                } else {
                    Unit unit = spec.kind().equals("tenure") ? tenure(spec, ds, insert) : shedLock(ds, insert);
                    try {
                        loop(unit, w, driver, plans, spec.name(), outcomes);
                    } finally {
                        unit.close();
                    }
                }
                serverPlans = serverPlans(pool, threads + 3);
            }
            long[] effects = pg.effects(table);
            Map<String, long[]> wal = w.walByResourceManager(pg.url(), pgUser, dbOid);
            if (noSlot != null && ProfileReport.walError(wal) != null) {
                wal = Map.of(
                        "error: " + ProfileReport.walError(wal) + " (no replication slot kept the WAL: " + noSlot + ")",
                        new long[] {0, 0, 0});
            }
            return new ProfileReport.Result(
                    spec, units, w, outcomes, effects[0], wal, threads, w.maintenance(pg.url(), pgUser), serverPlans);
        } finally {
            w.releaseWal();
        }
    }

    /**
     * The server-side prepared statements of every pooled connection (pgjdbc prepares a statement on the server from
     * its fifth execution on a connection): per statement text ({@code $n} written {@code ?}), how many executions
     * used the generic plan and how many were planned anew (custom plans), summed over the connections.
     */
    private static Map<String, long[]> serverPlans(HikariDataSource pool, int size) throws SQLException {
        Map<String, long[]> plans = new TreeMap<>();
        List<Connection> held = new ArrayList<>();
        try {
            for (int k = 0; k < size; k++) {
                held.add(pool.getConnection());
            }
            for (Connection c : held) {
                try (java.sql.Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery(
                                "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")) {
                    while (rs.next()) {
                        String text =
                                RecordingDataSource.normalize(rs.getString(1).replaceAll("\\$\\d+", "?"), false);
                        long[] n = plans.computeIfAbsent(text, t -> new long[2]);
                        n[0] += rs.getLong(2);
                        n[1] += rs.getLong(3);
                    }
                }
            }
        } finally {
            for (Connection c : held) {
                c.close();
            }
        }
        return plans;
    }

    /** One unit of a loop-driven row; returns an outcome name. */
    interface Unit extends AutoCloseable {
        String run(long i) throws Exception;

        @Override
        void close();
    }

    private void loop(
            Unit unit,
            ProfileWindow w,
            RecordingDataSource driver,
            PlanCapture plans,
            String row,
            Map<String, Long> outcomes)
            throws Exception {
        long i = 0;
        for (; i < warmup; i++) {
            unit.run(i);
        }
        w.begin();
        for (; i < warmup + units; i++) {
            outcomes.merge(unit.run(i), 1L, Long::sum);
        }
        w.end();
        Map<String, String> raw = windowTexts(w, driver, plans, row);
        driver.hook = plans;
        for (int k = 0; k < explainUnits && !plans.complete(raw); k++) {
            unit.run(i++);
        }
        driver.hook = null;
    }

    /** Tells the plan capture which statements the window sent; their raw texts by normalized text. */
    private static Map<String, String> windowTexts(
            ProfileWindow w, RecordingDataSource driver, PlanCapture plans, String row) {
        Map<String, String> raw = new HashMap<>();
        ProfileWindow.delta(w.begin.driver(), w.end.driver()).keySet().stream()
                .filter(k -> k.startsWith("sql:"))
                .map(k -> k.substring(4))
                .forEach(t -> raw.put(t, driver.texts.get(t).raw));
        plans.want(row, raw.keySet());
        return raw;
    }

    /** Job i of the walk of node 0 of 1 over the jobs, with a fire of its own: what TenureWorkload's threads run. */
    private String job(long i) {
        return "job-" + i % jobs;
    }

    private String fire(long i) {
        return "n0-r" + i / jobs;
    }

    private Unit tenure(Spec spec, DataSource ds, String insert) {
        Tenure.Builder b = Tenure.builder().dataSource(ds).migrateSchema(false);
        if (spec.valkey()) {
            b.valkey(ValkeyConfig.standalone("127.0.0.1:" + valkeyPort)
                            .clientName("pgprof")
                            .build())
                    .mode(JobCoordinator.Mode.VALKEY);
        }
        Tenure tenure = b.build();
        JobCoordinator coordinator = tenure.coordinator();
        return new Unit() {
            @Override
            public String run(long i) {
                String job = job(i);
                String fire = fire(i);
                RunOutcome<Void> o = spec.oneTransaction()
                        ? coordinator.runInTransaction(
                                job, fire, RunPolicy.skipFire(), ds, (ctx, c) -> insert(c, insert, job, fire))
                        : coordinator.run(
                                job,
                                fire,
                                RunPolicy.skipFire(),
                                ctx -> ctx.completeInTransaction(ds, c -> insert(c, insert, job, fire)));
                return o.status().name();
            }

            @Override
            public void close() {
                tenure.close();
            }
        };
    }

    private Unit shedLock(DataSource ds, String insert) {
        JdbcTemplateLockProvider provider =
                new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                        .withJdbcTemplate(new JdbcTemplate(ds))
                        .withTableName("shedlock")
                        .usingDbTime()
                        .build());
        return new Unit() {
            @Override
            public String run(long i) throws Exception {
                String name = job(i);
                Optional<SimpleLock> lock = provider.lock(
                        new LockConfiguration(Instant.now(), name, Duration.ofSeconds(30), Duration.ZERO));
                if (lock.isEmpty()) {
                    return "HELD";
                }
                try (Connection c = ds.getConnection()) {
                    insert(c, insert, name, fire(i));
                } finally {
                    lock.get().unlock();
                }
                return "LOCKED_AND_RAN";
            }

            @Override
            public void close() {}
        };
    }

    /**
     * db-scheduler on its backlog: the window opens as execution number {@code warmup} starts and closes as number
     * {@code warmup + units} starts, inside the task, so it holds {@code units} whole cycles (fetch, run, delete).
     */
    private void dbScheduler(
            DataSource ds,
            String insert,
            int threads,
            ProfileWindow w,
            RecordingDataSource driver,
            PlanCapture plans,
            String row,
            Map<String, Long> outcomes)
            throws Exception {
        AtomicLong started = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<Map<String, String>> raw = new AtomicReference<>();
        AtomicReference<RuntimeException> failed = new AtomicReference<>();
        OneTimeTask<Void> task = Tasks.oneTime(DbSchedulerWorkload.TASK).execute((instance, ctx) -> {
            long k = started.getAndIncrement();
            try {
                if (k == warmup) {
                    w.begin();
                } else if (k == warmup + units) {
                    w.end();
                    raw.set(windowTexts(w, driver, plans, row));
                    driver.hook = plans;
                }
            } catch (RuntimeException e) {
                failed.set(e);
                done.countDown();
                return;
            }
            if (k > warmup + units
                    && (k >= warmup + units + explainUnits || raw.get() != null && plans.complete(raw.get()))) {
                driver.hook = null;
                done.countDown();
                return;
            }
            try (Connection c = ds.getConnection()) {
                insert(c, insert, DbSchedulerWorkload.TASK, instance.getId());
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            if (k >= warmup && k < warmup + units) {
                synchronized (outcomes) {
                    outcomes.merge("EXECUTED", 1L, Long::sum);
                }
            }
        });
        Scheduler scheduler = Scheduler.create(ds, task)
                .threads(threads)
                .pollUsingLockAndFetch(0.5, 1.0)
                .schedulerName(new SchedulerName.Fixed("pgprof"))
                .shutdownMaxWait(Duration.ofSeconds(5))
                .build();
        scheduler.start();
        try {
            if (!done.await(30, TimeUnit.MINUTES)) {
                throw new IllegalStateException("db-scheduler ran " + started.get() + " executions in 30 minutes");
            }
            if (failed.get() != null) {
                throw failed.get();
            }
        } finally {
            driver.hook = null;
            scheduler.stop();
        }
    }

    /** The business row every library's unit writes (Node.insert). */
    private static Void insert(Connection c, String sql, String job, String fire) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, job);
            ps.setString(2, fire);
            ps.setInt(3, 0);
            ps.executeUpdate();
        }
        return null;
    }

    /**
     * The benchmark's pool ({@link Pools#create}'s settings), with a recorder under it: Hikari gets its connections
     * from pgjdbc through {@code driver}, and pgjdbc's sockets count round trips ({@link RoundTripSocketFactory}).
     */
    private HikariDataSource pool(String url, int size, String name, RecordingDataSource driver) {
        HikariConfig h = TenureDataSources.hikariConfig(PoolConfig.builder(url)
                .user(pgUser)
                .maxPoolSize(size)
                .connectionTimeout(Duration.ofSeconds(10))
                .statementTimeout(Duration.ofSeconds(30))
                .applicationName(name)
                .build());
        h.setPoolName(name);
        Properties p = new Properties();
        p.putAll(h.getDataSourceProperties());
        p.setProperty("socketFactory", RoundTripSocketFactory.class.getName());
        h.setDataSource(driver.wrap(new DriverDataSource(h.getJdbcUrl(), null, p, h.getUsername(), h.getPassword())));
        return new HikariDataSource(h);
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (java.sql.Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
