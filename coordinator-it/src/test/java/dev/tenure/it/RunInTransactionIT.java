package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.JobCoordinator;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link JobCoordinator#runInTransaction}: a run that is one transaction completes the fire and frees the job in its
 * own commit, on a real Postgres (and Valkey in VALKEY mode). The frozen-process case is in {@link ExactlyOnceIT}.
 */
class RunInTransactionIT {

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(RunInTransactionIT.class);
        servers.execute("CREATE TABLE tx_effects (job text NOT NULL, fire_key text NOT NULL, epoch bigint NOT NULL)");
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    private static Tenure tenure(JobCoordinator.Mode mode) {
        return Workers.tenure(
                mode.name(),
                mode == JobCoordinator.Mode.DATABASE ? "-" : servers.valkey.address(),
                servers.db.dataSource(),
                Duration.ofSeconds(30),
                Duration.ofSeconds(2),
                Duration.ofSeconds(5));
    }

    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY", "DATABASE"})
    void executed_theOneCommitCompletesTheFireAndFreesTheJob(JobCoordinator.Mode mode) throws Exception {
        String job = "tx-done-" + mode;
        try (Tenure t = tenure(mode)) {
            RunOutcome<Integer> o = inserting(t, job, "f1", servers.db.dataSource());
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(o.completedInTransaction()).isTrue();
            assertThat(o.result()).isEqualTo(1);
            assertThat(servers.one(
                            "SELECT status FROM tenure.job_runs WHERE job_key = '" + job + "' AND fire_key = 'f1'"))
                    .isEqualTo("COMPLETED");
            assertThat(servers.one(
                            "SELECT status || ' ' || coalesce(owner, 'none') FROM tenure.job_execution WHERE job_key = '"
                                    + job + "'"))
                    .as("the job's database lease, cleared by the same commit")
                    .isEqualTo("IDLE none");
            // both leases are free: a skipFire run of the next fire gets them at once
            RunOutcome<Integer> next = inserting(t, job, "f2", servers.db.dataSource());
            assertThat(next.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(next.epoch()).isGreaterThan(o.epoch());
            RunOutcome<Integer> again = inserting(t, job, "f1", servers.db.dataSource());
            assertThat(again.status())
                    .as("a completed fire is final")
                    .isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
        }
        assertThat(servers.count("SELECT count(*) FROM tx_effects WHERE job = '" + job + "'"))
                .isEqualTo(2);
    }

    @Test
    void workThrows_nothingCommitsTheRunFailsAndTheJobIsFree() throws Exception {
        String job = "tx-throws";
        try (Tenure t = tenure(JobCoordinator.Mode.DATABASE)) {
            RunOutcome<Integer> o = t.coordinator()
                    .runInTransaction(job, "f1", RunPolicy.skipFire(), servers.db.dataSource(), (ctx, c) -> {
                        insert(c, job, "f1", ctx.epoch());
                        throw new IllegalStateException("settlement file missing");
                    });
            assertThat(o.status()).isEqualTo(RunOutcome.Status.FAILED);
            assertThat(o.error()).hasMessage("settlement file missing");
            assertThat(servers.one("SELECT status FROM tenure.job_runs WHERE job_key = '" + job + "'"))
                    .isEqualTo("FAILED");
            assertThat(servers.one("SELECT status FROM tenure.job_execution WHERE job_key = '" + job + "'"))
                    .isEqualTo("IDLE");
            RunOutcome<Integer> retry = inserting(t, job, "f1", servers.db.dataSource());
            assertThat(retry.status()).as("a failed fire runs again").isEqualTo(RunOutcome.Status.EXECUTED);
        }
        assertThat(servers.count("SELECT count(*) FROM tx_effects WHERE job = '" + job + "'"))
                .isEqualTo(1);
    }

    /** The epoch check comes at the end: an operator's force-release during the work makes the commit impossible. */
    @Test
    void leaseTakenAwayDuringTheTransaction_theCheckAtTheEndRollsTheWorkBack() throws Exception {
        String job = "tx-taken";
        TenureAdmin admin = TenureAdmin.create(servers.db.dataSource());
        try (Tenure t = tenure(JobCoordinator.Mode.DATABASE)) {
            RunOutcome<Integer> o = t.coordinator()
                    .runInTransaction(job, "f1", RunPolicy.skipFire(), servers.db.dataSource(), (ctx, c) -> {
                        int n = insert(c, job, "f1", ctx.epoch());
                        // not held back by this open transaction: the epoch is checked only at its end
                        admin.forceRelease(job, "test: the holder is presumed dead", "RunInTransactionIT");
                        return n;
                    });
            assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
            assertThat(o.completedInTransaction()).isFalse();
            assertThat(servers.one("SELECT status FROM tenure.job_runs WHERE job_key = '" + job + "'"))
                    .isEqualTo("REJECTED_STALE");
            assertThat(servers.count("SELECT count(*) FROM tx_effects WHERE job = '" + job + "'"))
                    .as("rolled back")
                    .isZero();
            RunOutcome<Integer> retry = inserting(t, job, "f1", servers.db.dataSource());
            assertThat(retry.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(retry.epoch()).isGreaterThan(o.epoch());
        }
        assertThat(servers.count("SELECT count(*) FROM tx_effects WHERE job = '" + job + "'"))
                .isEqualTo(1);
    }

    /** The commit's answer is lost after the server committed: the ledger, read again, says the fire completed. */
    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY", "DATABASE"})
    void commitAnswerLost_afterTheServerCommitted_theRunIsExecuted(JobCoordinator.Mode mode) throws Exception {
        String job = "tx-commit-lost-" + mode;
        try (Tenure t = tenure(mode)) {
            RunOutcome<Integer> o = inserting(t, job, "f1", new FaultyCommit(servers.db.dataSource(), true));
            System.out.printf("%s, commit answer lost after the commit: %s, error %s%n", mode, o.status(), o.error());
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(o.completedInTransaction()).isTrue();
            assertThat(o.error()).isInstanceOf(SQLException.class).hasMessageContaining("answer lost");
            RunOutcome<Integer> next = inserting(t, job, "f2", servers.db.dataSource());
            assertThat(next.status()).as("the job is free").isEqualTo(RunOutcome.Status.EXECUTED);
        }
        assertThat(servers.count("SELECT count(*) FROM tx_effects WHERE job = '" + job + "'"))
                .isEqualTo(2);
    }

    @Test
    void commitFails_beforeTheServerCommitted_theRunFailsAndTheJobIsFree() throws Exception {
        String job = "tx-commit-failed";
        try (Tenure t = tenure(JobCoordinator.Mode.DATABASE)) {
            RunOutcome<Integer> o = inserting(t, job, "f1", new FaultyCommit(servers.db.dataSource(), false));
            assertThat(o.status()).isEqualTo(RunOutcome.Status.FAILED);
            assertThat(o.completedInTransaction()).isFalse();
            assertThat(servers.one("SELECT status FROM tenure.job_runs WHERE job_key = '" + job + "'"))
                    .isEqualTo("FAILED");
            assertThat(servers.one("SELECT status FROM tenure.job_execution WHERE job_key = '" + job + "'"))
                    .isEqualTo("IDLE");
        }
        assertThat(servers.count("SELECT count(*) FROM tx_effects WHERE job = '" + job + "'"))
                .isZero();
    }

    /** 8 threads of one process fire the same 20 fires of one job, each until done: every fire takes effect once. */
    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY", "DATABASE"})
    void manyThreadsOnSharedFires_eachFireTakesEffectOnce(JobCoordinator.Mode mode) throws Exception {
        String job = "tx-threads-" + mode;
        int fires = 20;
        ConcurrentHashMap<RunOutcome.Status, Integer> outcomes = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (Tenure t = tenure(mode)) {
            List<Future<?>> done = new ArrayList<>();
            for (int th = 0; th < 8; th++) {
                done.add(pool.submit(() -> {
                    for (int f = 0; f < fires; f++) {
                        String fire = "f" + f;
                        RunOutcome<Integer> o;
                        do {
                            o = t.coordinator()
                                    .runInTransaction(
                                            job,
                                            fire,
                                            RunPolicy.waitUpTo(Duration.ofSeconds(10)),
                                            servers.db.dataSource(),
                                            (ctx, c) -> insert(c, job, fire, ctx.epoch()));
                            outcomes.merge(o.status(), 1, Integer::sum);
                        } while (o.status() != RunOutcome.Status.EXECUTED
                                && o.status() != RunOutcome.Status.SKIPPED_ALREADY_DONE);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.printf("%s, 8 threads x %d shared fires: %s%n", mode, fires, outcomes);
        assertThat(outcomes.get(RunOutcome.Status.EXECUTED)).as("executed runs").isEqualTo(fires);
        assertThat(servers.count("SELECT count(*) FROM tx_effects WHERE job = '" + job + "'"))
                .isEqualTo(fires);
        assertThat(servers.count("SELECT count(DISTINCT fire_key) FROM tx_effects WHERE job = '" + job + "'"))
                .isEqualTo(fires);
    }

    /** A skipFire run of {@code fire} whose one transaction on {@code ds} inserts the fire's row. */
    private static RunOutcome<Integer> inserting(Tenure t, String job, String fire, DataSource ds) {
        return t.coordinator()
                .runInTransaction(job, fire, RunPolicy.skipFire(), ds, (ctx, c) -> insert(c, job, fire, ctx.epoch()));
    }

    private static int insert(Connection c, String job, String fire, long epoch) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO tx_effects (job, fire_key, epoch) VALUES (?, ?, ?)")) {
            ps.setString(1, job);
            ps.setString(2, fire);
            ps.setLong(3, epoch);
            return ps.executeUpdate();
        }
    }

    /**
     * Connections whose {@code commit()} fails: after committing on the server ({@code committed}, as when the answer
     * is lost on the way back) or after rolling back instead.
     */
    private record FaultyCommit(DataSource target, boolean committed) implements DataSource {

        @Override
        public Connection getConnection() throws SQLException {
            Connection real = target.getConnection();
            return (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("commit")) {
                            if (committed) {
                                real.commit();
                                throw new SQLException("the commit's answer lost (the server committed)");
                            }
                            real.rollback();
                            throw new SQLException("the commit failed (the server rolled back)");
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        @Override
        public Connection getConnection(String u, String p) {
            throw new UnsupportedOperationException();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
