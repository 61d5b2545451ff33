package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.DatabaseConfig;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.Leases;
import dev.tenure.spi.RunLedger.Finished;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 4 (and the fault list of the issue) on the shared server: a killed backend mid-claim and mid-run, a
 * statement timeout, an exhausted pool. Each gives a typed exception within bounded time, leaves no partial rows,
 * and is followed by a clean claim. (Restarting Postgres: {@link PostgresRestartIT}.)
 */
class LedgerFaultsIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(LedgerFaultsIT.class);
        fx.execute("CREATE TABLE public.business (job_key text, item int)");
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static String key() {
        return "fault-" + UUID.randomUUID();
    }

    /**
     * A transaction that holds the job's row locked past the lease, so claims must wait for it. It is not a fenced
     * transaction: a claim of an expired lease ends a fenced one that sits idle (StaleFencesIT), and these tests are
     * about the claim's own errors while it waits.
     */
    private static Connection openRowLock(String key) throws SQLException {
        Connection tx = fx.connect();
        tx.setAutoCommit(false);
        try (PreparedStatement ps =
                tx.prepareStatement("SELECT 1 FROM tenure.job_execution WHERE job_key = ? FOR UPDATE")) {
            ps.setString(1, key);
            ps.executeQuery().close();
        }
        return tx;
    }

    private static int backendWaitingOnLock(String needle) {
        List<String> pids = new ArrayList<>();
        Awaitility.await()
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    pids.clear();
                    pids.addAll(fx.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                            + "AND wait_event_type = 'Lock' AND query LIKE '%" + needle + "%'"));
                    return !pids.isEmpty();
                });
        return Integer.parseInt(pids.get(0));
    }

    private static void awaitExpiry(String key) {
        Awaitility.await()
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> fx.leases.holder(key).isEmpty());
    }

    private static String row(String key) {
        return String.join(
                "|",
                fx.query("SELECT fencing_token || ' ' || coalesce(owner, '-') || ' ' || status "
                        + "FROM tenure.job_execution WHERE job_key = '" + key + "'"));
    }

    @Test
    void backendKilledMidClaim_typedError_rowUnchanged_cleanClaimAfterwards() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofMillis(1000))).epoch();
        try (Connection a = openRowLock(key)) {
            awaitExpiry(key); // A's lease has ended; B's claim will wait for A's row lock
            CompletableFuture<ClaimResult> b =
                    CompletableFuture.supplyAsync(() -> fx.leases.claim(key, "B", Duration.ofSeconds(5)));
            backendWaitingOnLock("free AS");
            long killedAt = System.nanoTime();
            // The claim's first try waits for the lock only briefly. Under load it could give up just before the kill
            // and its full-length second try then ran out as "held" (a clean-clone run under two busy loops): so every
            // backend of the claim that waits on the lock is ended, until the claim returns.
            while (!b.isDone()
                    && System.nanoTime() - killedAt
                            < Timing.scaled(Duration.ofSeconds(5)).toNanos()) {
                fx.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                        + "AND wait_event_type = 'Lock' AND query LIKE '%free AS%'");
                Thread.sleep(10);
            }
            assertThatThrownBy(() -> b.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOfSatisfying(LedgerUnavailableException.class, e -> {
                        assertThat(e.key()).isEqualTo(key);
                        assertThat(e.sqlState()).startsWith("57P01");
                    });
            long failedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            System.out.printf("claim killed mid-wait: typed error after %d ms; row %s%n", failedAfter, row(key));
            assertThat(failedAfter).isLessThan(Timing.scaledMillis(2000));
            assertThat(row(key)).isEqualTo(n + " A HELD");
            a.commit();
        }
        ClaimResult.Claimed again = (ClaimResult.Claimed) fx.leases.claim(key, "B", Duration.ofSeconds(5));
        assertThat(again.epoch()).isGreaterThan(n);
    }

    @Test
    void backendKilledMidRun_businessWritesRolledBack_runAbandonedAndTakenOver() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofMillis(1500))).epoch();
        RunStart.Started run = (RunStart.Started) fx.runs.start(key, "fire-1", n, "A");
        Connection a = fx.connect();
        a.setAutoCommit(false);
        fx.runs.fence(a, key, n, "A");
        try (PreparedStatement ps = a.prepareStatement("INSERT INTO public.business VALUES (?, ?)")) {
            for (int i = 0; i < 3; i++) {
                ps.setString(1, key);
                ps.setInt(2, i);
                ps.executeUpdate();
            }
        }
        int pid = Integer.parseInt(fx.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                        + "AND state = 'idle in transaction'")
                .get(0));
        fx.query("SELECT pg_terminate_backend(" + pid + ")");
        assertThatThrownBy(a::commit).isInstanceOf(SQLException.class);
        a.close();
        assertThat(fx.query("SELECT count(*) FROM public.business WHERE job_key = '" + key + "'"))
                .containsExactly("0");
        assertThat(fx.runs.runOf(key, "fire-1"))
                .get()
                .extracting(RunRecord::status)
                .isEqualTo(RunStatus.RUNNING);

        Awaitility.await()
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> fx.leases.holder(key).isEmpty());
        long m = ((ClaimResult.Claimed) fx.leases.claim(key, "B", Duration.ofSeconds(5))).epoch();
        RunStart retry = fx.runs.start(key, "fire-1", m, "B");
        assertThat(retry).isInstanceOfSatisfying(RunStart.Started.class, s -> {
            assertThat(s.attempt()).isEqualTo(2);
            assertThat(s.previousStatus()).isEqualTo(RunStatus.ABANDONED);
        });
        RunRecord taken = fx.runs.runOf(key, "fire-1").orElseThrow();
        assertThat(taken.epoch()).isEqualTo(m);
        assertThat(taken.owner()).isEqualTo("B");
        assertThat(fx.runs.finishAndRelease(key, n, "A", run.runId(), RunStatus.COMPLETED, null))
                .as("the old holder's late finish")
                .isEqualTo(Finished.STALE);
        assertThat(fx.runs.finishAndRelease(key, m, "B", ((RunStart.Started) retry).runId(), RunStatus.COMPLETED, null))
                .isEqualTo(Finished.RECORDED);
        assertThat(fx.runs.runOf(key, "fire-1"))
                .get()
                .extracting(RunRecord::status)
                .isEqualTo(RunStatus.COMPLETED);
    }

    @Test
    void pooledConnectionKilledBetweenCalls_nextCallTyped_thenRecovers() {
        try (HikariDataSource pool = fx.pool(Fixture.poolConfig(fx.db).maxPoolSize(2));
                JdbcLeaseStore leases = Fixture.store(pool, Fixture.NO_LISTEN)) {
            String key = key();
            long n = ((ClaimResult.Claimed) leases.claim(key, "A", Duration.ofSeconds(5))).epoch();
            fx.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND application_name = 'tenure' AND pid <> pg_backend_pid()");
            int typed = 0;
            for (int i = 0; i < 4; i++) {
                try {
                    assertThat(leases.renewEpoch(key, n, "A", Duration.ofSeconds(5)))
                            .isTrue();
                } catch (LedgerUnavailableException e) {
                    typed++;
                }
            }
            assertThat(typed)
                    .as("dead pooled connections fail typed, then Hikari replaces them")
                    .isLessThanOrEqualTo(2);
            assertThat(leases.releaseEpoch(key, n, "A")).isPresent();
        }
    }

    /**
     * A finish that meets a row lock (here a test's open transaction on the run row; in the field, a completion joined
     * to a transaction that has not committed yet) gives up after the claim lock timeout with a lock timeout, not after
     * the statement timeout, and changes nothing.
     */
    @Test
    void finishBlockedByARowLock_typedLockTimeout_withinTheClaimLockTimeout_nothingChanged() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofSeconds(30))).epoch();
        UUID run = ((RunStart.Started) fx.runs.start(key, "f1", n, "A")).runId();
        try (JdbcBackend.Siblings stores = Fixture.open(
                        fx.pool,
                        DatabaseConfig.builder()
                                .claimLockTimeout(Duration.ofMillis(500))
                                .listen(false)
                                .build());
                Connection lock = fx.connect()) {
            JdbcRunLedger runs = stores.runs();
            lock.setAutoCommit(false);
            try (Statement s = lock.createStatement()) {
                // the job row, which the finish updates (the run's row is written then, schema version 8)
                s.execute("SELECT 1 FROM tenure.job_execution WHERE job_key = '" + key + "' FOR UPDATE");
            }
            long started = System.nanoTime();
            assertThatThrownBy(() -> runs.finishAndRelease(key, n, "A", run, RunStatus.COMPLETED, null))
                    .isInstanceOfSatisfying(LedgerUnavailableException.class, e -> {
                        assertThat(e.sqlState()).isEqualTo(Faults.LOCK_TIMEOUT);
                        assertThat(e.outcomeUnknown()).isFalse();
                    });
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("finish against a locked job row, lock timeout 500 ms: typed error after %d ms%n", took);
            assertThat(took)
                    .as("bounded by the lock timeout, not the 5 s statement timeout")
                    .isLessThan(Timing.scaledMillis(3000));
            lock.rollback();
        }
        assertThat(row(key)).isEqualTo(n + " A RUNNING");
        assertThat(fx.query("SELECT status FROM tenure.job_runs WHERE run_id = '" + run + "'"))
                .containsExactly("RUNNING");
        assertThat(fx.runs.finishAndRelease(key, n, "A", run, RunStatus.COMPLETED, null))
                .isEqualTo(Finished.RECORDED);
    }

    @Test
    void statementTimeout_typedError_nothingChanged() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofMillis(1000))).epoch();
        try (Connection a = openRowLock(key);
                HikariDataSource pool = fx.pool(Fixture.poolConfig(fx.db).statementTimeout(Duration.ofMillis(300)));
                JdbcLeaseStore leases = Fixture.store(
                        pool,
                        DatabaseConfig.builder()
                                .claimLockTimeout(Duration.ofSeconds(10))
                                .listen(false)
                                .build())) {
            awaitExpiry(key);
            long started = System.nanoTime();
            assertThatThrownBy(() -> leases.claim(key, "B", Duration.ofSeconds(5)))
                    .isInstanceOfSatisfying(LedgerUnavailableException.class, e -> {
                        assertThat(e.sqlState()).isEqualTo("57014");
                        assertThat(e.outcomeUnknown()).isFalse();
                        assertThat(e.getMessage()).contains("statement timeout");
                    });
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("statement timeout 300 ms: typed error after %d ms%n", took);
            assertThat(took).isBetween(250L, Timing.scaledMillis(2000));
            assertThat(row(key)).isEqualTo(n + " A HELD");
            a.commit();
            assertThat(((ClaimResult.Claimed) leases.claim(key, "B", Duration.ofSeconds(5))).epoch())
                    .isGreaterThan(n);
        }
    }

    @Test
    void poolExhausted_typedErrorWithinConnectionTimeout_syncAndAsync() throws Exception {
        try (HikariDataSource pool =
                        fx.pool(Fixture.poolConfig(fx.db).maxPoolSize(2).connectionTimeout(Duration.ofMillis(300)));
                JdbcLeaseStore store = Fixture.store(pool, Fixture.NO_LISTEN)) {
            String key = key();
            Connection c1 = pool.getConnection();
            Connection c2 = pool.getConnection();
            try {
                long started = System.nanoTime();
                assertThatThrownBy(() -> store.claim(key, "A", Duration.ofSeconds(5)))
                        .isInstanceOfSatisfying(LedgerUnavailableException.class, e -> {
                            assertThat(e.outcomeUnknown()).isFalse();
                            assertThat(e.getMessage())
                                    .contains("pool exhausted")
                                    .contains(key);
                        });
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                started = System.nanoTime();
                CompletableFuture<?> f = store.tryAcquire(key, "A", Duration.ofSeconds(5), true);
                assertThatThrownBy(() -> f.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                        .cause()
                        .isInstanceOf(LeaseStoreUnavailableException.class)
                        .hasMessageContaining(key);
                long tookAsync = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                System.out.printf(
                        "pool exhausted (connectionTimeout 300 ms): typed error after %d ms (ledger), %d ms (store future)%n",
                        took, tookAsync);
                assertThat(took).isBetween(250L, Timing.scaledMillis(1500));
                assertThat(tookAsync).isBetween(250L, Timing.scaledMillis(1500));
                assertThat(fx.query("SELECT count(*) FROM tenure.job_execution WHERE job_key = '" + key + "'"))
                        .containsExactly("0");
                try (Leases leases = Leases.builder(store).ownsStore(false).build()) {
                    assertThatThrownBy(() -> leases.tryAcquire(key)).isInstanceOf(LeaseStoreUnavailableException.class);
                    assertThat(leases.heldLeases())
                            .as("the lease is not believed held")
                            .isZero();
                }
            } finally {
                c1.close();
                c2.close();
            }
            assertThat(store.claim(key, "A", Duration.ofSeconds(5))).isInstanceOf(ClaimResult.Claimed.class);
        }
    }
}
