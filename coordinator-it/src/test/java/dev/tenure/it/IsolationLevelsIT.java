package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.JobContext;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Business transactions at REPEATABLE READ and SERIALIZABLE (a pool configured so, as an application configures
 * Hikari), on real Postgres, with a work that spans several renewals of a short lease (TTL 1.5 s renewed every 0.5 s,
 * a work of 2 s, all scaled): {@code runInTransaction} and {@code completeInTransaction} complete the fire, and the
 * fence still refuses a holder whose job was taken over after the transaction's snapshot.
 */
class IsolationLevelsIT {

    enum Level {
        REPEATABLE_READ("TRANSACTION_REPEATABLE_READ", "repeatable read"),
        SERIALIZABLE("TRANSACTION_SERIALIZABLE", "serializable");

        final String hikari;
        final String postgres;

        Level(String hikari, String postgres) {
            this.hikari = hikari;
            this.postgres = postgres;
        }
    }

    private static final Duration TTL = Timing.scaled(Duration.ofMillis(1500));
    private static final Duration WORK = Timing.scaled(Duration.ofMillis(2000));

    private static CoordinatorServers servers;
    private static final Map<Level, HikariDataSource> pools = new EnumMap<>(Level.class);
    private static Tenure tenure;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(IsolationLevelsIT.class);
        servers.execute("CREATE TABLE iso_effects (job text NOT NULL, fire_key text NOT NULL, epoch bigint NOT NULL)");
        for (Level level : Level.values()) {
            HikariDataSource pool = new HikariDataSource();
            pool.setJdbcUrl(servers.db.jdbcUrl());
            pool.setUsername(servers.db.username());
            pool.setPassword(servers.db.password());
            pool.setMaximumPoolSize(4);
            pool.setTransactionIsolation(level.hikari);
            pools.put(level, pool);
        }
        tenure = Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(TTL).withRenewEvery(TTL.dividedBy(3)))
                .build();
    }

    @AfterAll
    static void stop() {
        if (tenure != null) {
            tenure.close();
        }
        pools.values().forEach(HikariDataSource::close);
        servers.close();
    }

    @ParameterizedTest
    @EnumSource(Level.class)
    void runInTransaction_workSpanningRenewals_completesTheFire(Level level) throws Exception {
        String job = "iso-run-" + level;
        RunOutcome<String> o = tenure.coordinator()
                .runInTransaction(
                        job, "f1", RunPolicy.skipFire(), pools.get(level), (run, c) -> spanningRenewals(run, c));
        report("runInTransaction", level, o);
        assertExecutedAndCommitted(job, level, o);
    }

    @ParameterizedTest
    @EnumSource(Level.class)
    void completeInTransaction_workSpanningRenewals_completesTheFire(Level level) throws Exception {
        String job = "iso-complete-" + level;
        RunOutcome<String> o = tenure.coordinator()
                .run(
                        job,
                        "f1",
                        RunPolicy.skipFire(),
                        run -> run.completeInTransaction(pools.get(level), c -> spanningRenewals(run, c)));
        report("completeInTransaction", level, o);
        assertExecutedAndCommitted(job, level, o);
    }

    /**
     * The snapshot is taken, then an operator hands the job on: the fence must not pass on the snapshot's row. Postgres
     * refuses it with a serialization failure (the take-over locked the row FOR UPDATE), which Tenure explains.
     */
    @ParameterizedTest
    @EnumSource(Level.class)
    void fence_jobTakenOverAfterTheSnapshot_refusesTheHolder(Level level) throws Exception {
        String job = "iso-fence-" + level;
        TenureAdmin admin = TenureAdmin.create(servers.db.dataSource());
        RunOutcome<Throwable> o = tenure.coordinator().run(job, "f1", RunPolicy.skipFire(), run -> {
            try (Connection c = pools.get(level).getConnection()) {
                c.setAutoCommit(false);
                query(c, "SELECT count(*) FROM iso_effects"); // the transaction's snapshot
                admin.forceRelease(job, "test: taken over after the snapshot", "IsolationLevelsIT");
                Throwable refused = catchThrowable(() -> run.fence(c));
                c.rollback();
                return refused;
            }
        });
        System.out.printf("%s, fence after a take-over since the snapshot: %s%n", level, o.result());
        assertThat(o.result()).as("the fence, refused").isInstanceOf(SQLException.class);
        assertThat(((SQLException) o.result()).getSQLState())
                .as("a serialization failure")
                .isEqualTo("40001");
        assertThat(o.result()).hasMessageContaining("snapshot").hasMessageContaining(job);
    }

    /**
     * A transaction whose snapshot predates the run's claim cannot see the run: refused with a serialization failure
     * that says what to do, nothing completed. For a job that ran before (Postgres itself refuses to lock the claimed
     * row) and for a job whose row the claim created (the snapshot has no row).
     */
    @ParameterizedTest
    @EnumSource(Level.class)
    void complete_inATransactionOlderThanTheClaim_isRefusedWithWhatToDo(Level level) throws Exception {
        String ranBefore = "iso-older-" + level;
        tenure.coordinator().run(ranBefore, "f0", RunPolicy.skipFire(), run -> null);
        for (String job : new String[] {ranBefore, "iso-new-" + level}) {
            try (Connection c = pools.get(level).getConnection()) {
                c.setAutoCommit(false);
                query(c, "SELECT count(*) FROM iso_effects"); // the snapshot, before the claim
                RunOutcome<Void> o = tenure.coordinator().run(job, "f1", RunPolicy.skipFire(), run -> {
                    run.complete(c);
                    return null;
                });
                c.rollback();
                System.out.printf(
                        "%s, %s: complete in a transaction older than the claim: %s%n", level, job, o.error());
                assertThat(o.status()).isEqualTo(RunOutcome.Status.FAILED);
                assertThat(o.error())
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("snapshot")
                        .hasMessageContaining("inside the run")
                        .hasMessageContaining(job);
                assertThat(((SQLException) o.error()).getSQLState())
                        .as("a serialization failure")
                        .isEqualTo("40001");
            }
            assertThat(servers.one(
                            "SELECT status FROM tenure.job_runs WHERE job_key = '" + job + "' AND fire_key = 'f1'"))
                    .isEqualTo("FAILED");
        }
    }

    /**
     * The work: reads the transaction's isolation (a SELECT, so the snapshot is taken here), waits {@link #WORK} while the watchdog renews
     * the lease (read outside the transaction before and after), then writes its row.
     */
    private static String spanningRenewals(JobContext run, Connection c) throws SQLException {
        String isolation = query(c, "SELECT current_setting('transaction_isolation')"); // a SELECT: the snapshot
        String before = expiry(run.jobKey());
        try {
            Thread.sleep(WORK.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        String after = expiry(run.jobKey());
        if (before.equals(after)) {
            throw new IllegalStateException("no renewal committed during the work (lease expiry still " + before + ")");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO iso_effects VALUES (?, ?, ?)")) {
            ps.setString(1, run.jobKey());
            ps.setString(2, run.fireKey());
            ps.setLong(3, run.epoch());
            ps.executeUpdate();
        }
        return isolation;
    }

    private static String expiry(String job) throws SQLException {
        return servers.one("SELECT lease_expires_at FROM tenure.job_execution WHERE job_key = '" + job + "'");
    }

    private static void report(String form, Level level, RunOutcome<?> o) {
        System.out.printf(
                "%s at %s, work %d ms over a TTL of %d ms: %s%s%n",
                form,
                level,
                WORK.toMillis(),
                TTL.toMillis(),
                o.status(),
                o.error() == null ? "" : " (" + o.error() + ")");
    }

    private static void assertExecutedAndCommitted(String job, Level level, RunOutcome<String> o) throws SQLException {
        assertThat(o.error()).isNull();
        assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(o.completedInTransaction()).isTrue();
        assertThat(o.result()).as("the business transaction's isolation").isEqualTo(level.postgres);
        assertThat(servers.count("SELECT count(*) FROM iso_effects WHERE job = '" + job + "'"))
                .isEqualTo(1);
        assertThat(servers.one("SELECT status FROM tenure.job_runs WHERE job_key = '" + job + "' AND fire_key = 'f1'"))
                .isEqualTo("COMPLETED");
        assertThat(servers.one(
                        "SELECT coalesce(owner, 'none') FROM tenure.job_execution WHERE job_key = '" + job + "'"))
                .as("the job is free")
                .isEqualTo("none");
    }

    private static String query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
