package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.DatabaseConfig;
import dev.tenure.spi.RunLedger.FireClaim;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Schema version 8 (issue 37, "a run row written once"): the job row carries its running fire (fire key, start, trace
 * id, with the run id, epoch, owner and node it already had) from the statement that starts the run until the statement
 * that clears the run pointer; and {@code job_runs} shows every run once per fire, the rows of {@code job_run} and, for
 * a job whose running fire has no row of its own, that fire as a RUNNING row that stands in for the fire's earlier row.
 */
class RunningFireIT {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static Fixture fx;
    private static RunRows grouped;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(RunningFireIT.class);
        Jdbc jdbc = new Jdbc(fx.pool, DatabaseConfig.DEFAULT_QUERY_TIMEOUT);
        Sql sql = new Sql(TenureSchema.quoted(TenureSchema.DEFAULT_SCHEMA));
        LeaseRows leases = new LeaseRows(
                jdbc,
                sql,
                TenureSchema.DEFAULT_SCHEMA,
                DatabaseConfig.DEFAULT_CLAIM_LOCK_TIMEOUT,
                DatabaseConfig.DEFAULT_RENEW_LOCK_TIMEOUT,
                "node-g");
        grouped = new RunRows(jdbc, sql, leases, 1, 16);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    /** The job row's running fire: run id, fire, trace, epoch, owner, started known, status ("-": null). */
    private static String onJobRow(String key) {
        return fx.query("SELECT concat_ws('|', coalesce(current_run_id::text, '-'), coalesce(run_fire_key, '-'), "
                        + "coalesce(run_trace_id, '-'), fencing_token, coalesce(owner, '-'), "
                        + "(run_started_at IS NOT NULL)::text, status) FROM tenure.job_execution WHERE job_key = '"
                        + key + "'")
                .get(0);
    }

    private static String node(String key) {
        return fx.query("SELECT coalesce(node, '-') FROM tenure.job_execution WHERE job_key = '" + key + "'")
                .get(0);
    }

    private static final String RUN_COLUMNS = "concat_ws('|', run_id, fire_key, epoch, owner, coalesce(node, '-'), "
            + "status, attempt, coalesce(previous_run_id::text, '-'), coalesce(previous_status, '-'), "
            + "coalesce(trace_id, '-'), (finished_at IS NULL)::text, coalesce(error, '-'))";

    private static List<String> runs(String relation, String key) {
        return fx.query("SELECT " + RUN_COLUMNS + " FROM tenure." + relation + " WHERE job_key = '" + key
                + "' ORDER BY fire_key, run_id");
    }

    /** The run's row in job_runs while only the job row carries it: RUNNING, attempt 1, no previous attempt. */
    private static String running(String runId, String fire, long epoch, String owner, String key, String trace) {
        return String.join(
                "|", runId, fire, Long.toString(epoch), owner, node(key), "RUNNING", "1", "-", "-", trace, "true", "-");
    }

    @Test
    void claimAndStart_putsTheRunningFireOnTheJobRow_andTheRunRowIsWrittenOnceAtItsEnd() {
        String key = "running-" + UUID.randomUUID();
        FireClaim.Started s =
                (FireClaim.Started) fx.runs.claimAndStart(key, "f1", "A", TTL, "4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(onJobRow(key))
                .isEqualTo(s.runId() + "|f1|4bf92f3577b34da6a3ce929d0e0e4736|" + s.epoch() + "|A|true|RUNNING");
        assertThat(runs("job_run", key)).as("no run row while it runs").isEmpty();
        assertThat(runs("job_runs", key))
                .containsExactly(running(s.runId(), "f1", s.epoch(), "A", key, "4bf92f3577b34da6a3ce929d0e0e4736"));
        fx.runs.finishAndRelease(key, s.epoch(), "A", s.runId(), false, "boom");
        assertThat(onJobRow(key)).isEqualTo("-|-|-|" + s.epoch() + "|-|false|IDLE");
        assertThat(runs("job_run", key))
                .containsExactly(String.join(
                        "|",
                        s.runId(),
                        "f1",
                        Long.toString(s.epoch()),
                        "A",
                        "-",
                        "FAILED",
                        "1",
                        "-",
                        "-",
                        "4bf92f3577b34da6a3ce929d0e0e4736",
                        "false",
                        "boom"));
        assertThat(runs("job_runs", key)).isEqualTo(runs("job_run", key));
    }

    @Test
    void theTwoStepStart_andRecordTraceId_putTheRunningFireOnTheJobRow_finishKeepingTheLeaseClearsIt() {
        String key = "running-" + UUID.randomUUID();
        long e = ((ClaimResult.Claimed) fx.leases.claim(key, "A", TTL)).epoch();
        RunStart.Started run = (RunStart.Started) fx.runs.start(key, "f1", e, "A");
        assertThat(onJobRow(key)).isEqualTo(run.runId() + "|f1|-|" + e + "|A|true|RUNNING");
        fx.runs.recordTraceId(key, run.runId().toString(), "00f067aa0ba902b700f067aa0ba902b7");
        assertThat(onJobRow(key))
                .isEqualTo(run.runId() + "|f1|00f067aa0ba902b700f067aa0ba902b7|" + e + "|A|true|RUNNING");
        assertThat(runs("job_run", key)).isEmpty();
        assertThat(runs("job_runs", key))
                .containsExactly(
                        running(run.runId().toString(), "f1", e, "A", key, "00f067aa0ba902b700f067aa0ba902b7"));
        fx.runs.finish(key, e, "A", run.runId(), RunStatus.FAILED, "boom");
        assertThat(onJobRow(key)).isEqualTo("-|-|-|" + e + "|A|false|HELD");
        assertThat(runs("job_run", key)).hasSize(1).allMatch(r -> r.contains("|FAILED|"));
        fx.leases.releaseEpoch(key, e, "A");
        assertThat(onJobRow(key)).isEqualTo("-|-|-|" + e + "|-|false|IDLE");
    }

    @Test
    void aGroupedClaim_putsEachRunningFireOnItsJobRow() {
        String a = "running-a-" + UUID.randomUUID();
        String b = "running-b-" + UUID.randomUUID();
        List<RunRows.Claim> claims = List.of(
                new RunRows.Claim(a, "fa", "A", TTL, "2000", UUID.randomUUID(), "trace-a"),
                new RunRows.Claim(b, "fb", "B", TTL, "2000", UUID.randomUUID(), null));
        claims.forEach(c -> fx.execute("INSERT INTO tenure.job_execution (job_key) VALUES ('" + c.key() + "')"));
        grouped.sendGroup(claims);
        assertThat(node(a)).isEqualTo("node-g");
        assertThat(onJobRow(a))
                .startsWith(claims.get(0).runId() + "|fa|trace-a|")
                .endsWith("|A|true|RUNNING");
        assertThat(onJobRow(b)).startsWith(claims.get(1).runId() + "|fb|-|").endsWith("|B|true|RUNNING");
        assertThat(runs("job_run", a)).isEmpty();
        assertThat(runs("job_runs", a)).hasSize(1).allMatch(r -> r.contains("|RUNNING|1|"));
        assertThat(runs("job_runs", b)).hasSize(1).allMatch(r -> r.contains("|RUNNING|1|"));
    }

    @Test
    void aTakeOver_showsInJobRuns_inPlaceOfTheFiresEarlierRow_andItsRowTakesThatRowOverAtItsEnd() {
        String key = "running-" + UUID.randomUUID();
        FireClaim.Started first = (FireClaim.Started) fx.runs.claimAndStart(key, "f1", "A", TTL, null);
        fx.runs.finishAndRelease(key, first.epoch(), "A", first.runId(), false, "boom");
        FireClaim.Started second = (FireClaim.Started) fx.runs.claimAndStart(key, "f1", "B", TTL, "trace-b");
        String running = String.join(
                "|",
                second.runId(),
                "f1",
                Long.toString(second.epoch()),
                "B",
                node(key),
                "RUNNING",
                "2",
                first.runId(),
                "FAILED",
                "trace-b",
                "true",
                "-");
        assertThat(runs("job_runs", key))
                .as("the running attempt, in place of the fire's FAILED row")
                .containsExactly(running);
        assertThat(runs("job_run", key)).hasSize(1).allMatch(r -> r.contains("|FAILED|1|"));
        fx.runs.finishAndRelease(key, second.epoch(), "B", second.runId(), true, null);
        assertThat(runs("job_run", key))
                .as("the second attempt's row took the first's over")
                .containsExactly(running.replace("|RUNNING|", "|COMPLETED|").replace("|true|-", "|false|-"));
        assertThat(runs("job_runs", key)).isEqualTo(runs("job_run", key));
    }

    /**
     * The race that the run row written at the start used to close: a claim whose snapshot predates the holder's commit
     * waits for the job row (the holder's completion holds it), and the holder's lease has expired meanwhile, so the
     * claim finds the row free once it has it. It reads the fire's completion again with a snapshot of its own
     * ({@code settled_run}): the fire is reported done under the holder's run, and the job is not claimed.
     */
    @Test
    void aClaimThatWaitedForTheHoldersCompletion_findsTheFireDone_andClaimsNothing() throws Exception {
        try (JdbcBackend.Siblings stores = Fixture.open(fx.pool, patientClaims())) {
            race(stores.runs());
        }
    }

    /**
     * The same on a pool whose connections default to REPEATABLE READ (as an application may configure Hikari): the
     * ledger's own statements run at READ COMMITTED all the same, so the claim's second read sees the completion.
     */
    @Test
    void onAPoolAtRepeatableRead_aClaimThatWaitedForTheHoldersCompletion_findsTheFireDone() throws Exception {
        try (com.zaxxer.hikari.HikariDataSource rr = new com.zaxxer.hikari.HikariDataSource()) {
            rr.setJdbcUrl(fx.db.jdbcUrl());
            rr.setUsername(fx.db.username());
            rr.setPassword(fx.db.password());
            rr.setMaximumPoolSize(4);
            rr.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
            try (JdbcBackend.Siblings stores = Fixture.open(rr, patientClaims())) {
                race(stores.runs());
                try (java.sql.Connection c = rr.getConnection();
                        java.sql.Statement st = c.createStatement();
                        java.sql.ResultSet r = st.executeQuery("SHOW transaction_isolation")) {
                    r.next();
                    assertThat(r.getString(1))
                            .as("the pool's connections set back to their level")
                            .isEqualTo("repeatable read");
                }
            }
        }
    }

    /** A ledger whose claims wait long for a row lock: the races below decide when the lock is released. */
    private static DatabaseConfig patientClaims() {
        return DatabaseConfig.builder()
                .listen(false)
                .claimLockTimeout(dev.tenure.testkit.Timing.scaled(Duration.ofSeconds(20)))
                .build();
    }

    /**
     * Holder H completes fire f1 in a business transaction, its lease expires, and claimant C claims f1 while H's
     * transaction is still open. H's transaction stays busy (a statement that sleeps) until C is seen waiting for the job
     * row, so that C's claim does not end it as a frozen holder's idle transaction ({@link StaleFences}); then it
     * commits.
     */
    private static void race(JdbcRunLedger runs) throws Exception {
        String key = "running-race-" + UUID.randomUUID();
        FireClaim.Started h = (FireClaim.Started) runs.claimAndStart(key, "f1", "H", Duration.ofMillis(400), null);
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        try (java.sql.Connection business = fx.pool.getConnection()) {
            business.setAutoCommit(false);
            fx.runs.complete(business, key, h.epoch(), "H", h.runId());
            org.awaitility.Awaitility.await()
                    .atMost(dev.tenure.testkit.Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> fx.query("SELECT (lease_expires_at <= clock_timestamp())::text FROM "
                                    + "tenure.job_execution WHERE job_key = '" + key + "'")
                            .get(0)
                            .equals("true"));
            double busySeconds = dev.tenure.testkit.Timing.scaledMillis(3000) / 1000.0;
            java.util.concurrent.Future<?> holder = threads.submit(() -> {
                try (java.sql.Statement st = business.createStatement()) {
                    st.execute("SELECT pg_sleep(" + busySeconds + ")");
                }
                business.commit();
                return null;
            });
            org.awaitility.Awaitility.await()
                    .atMost(dev.tenure.testkit.Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> !fx.query("SELECT pid FROM pg_stat_activity WHERE state = 'active' "
                                    + "AND query LIKE 'SELECT pg_sleep%' AND datname = current_database()")
                            .isEmpty());
            java.util.concurrent.Future<FireClaim> late =
                    threads.submit(() -> runs.claimAndStart(key, "f1", "C", Duration.ofSeconds(30), null));
            // the claim waits for the job row, which the holder's open transaction holds
            org.awaitility.Awaitility.await()
                    .atMost(dev.tenure.testkit.Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> !fx.query("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                    + "AND query LIKE '%settled_run%' AND datname = current_database()")
                            .isEmpty());
            holder.get(dev.tenure.testkit.Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS);
            FireClaim answer = late.get(dev.tenure.testkit.Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS);
            assertThat(answer)
                    .as("the fire completed while the claim waited")
                    .isInstanceOfSatisfying(dev.tenure.spi.RunLedger.FireStart.AlreadyDone.class, d -> {
                        assertThat(d.runId()).isEqualTo(h.runId());
                        assertThat(d.owner()).isEqualTo("H");
                        assertThat(d.missed()).isFalse();
                    });
        } finally {
            threads.shutdownNow();
        }
        assertThat(fx.query("SELECT fencing_token || ' ' || coalesce(owner, '-') FROM tenure.job_execution "
                        + "WHERE job_key = '" + key + "'"))
                .as("not claimed: no epoch spent, the holder's row as its completion left it")
                .containsExactly(h.epoch() + " H");
        assertThat(runs("job_run", key)).hasSize(1).allMatch(r -> r.contains("|COMPLETED|1|"));
    }

    /**
     * The sweeper's side of the same race: a claim of a fire that a sweep records MISSED while the claim waits for the
     * job row (the sweep's transaction locks it). The sweep gives the job row a new version when it records MISSED
     * fires of the job, so the claim, which locks a version its snapshot does not show, reads the fire again and finds
     * it MISSED: the fire is not run. The sweep's statements are the ledger's own (lockJobs, recordMissed, touchJobs).
     */
    @Test
    void aClaimThatWaitedForASweepRecordingTheFireMissed_findsItMissed_andClaimsNothing() throws Exception {
        String key = "running-missed-" + UUID.randomUUID();
        FireClaim.Started earlier = (FireClaim.Started) fx.runs.claimAndStart(key, "f0", "H", TTL, null);
        fx.runs.finishAndRelease(key, earlier.epoch(), "H", earlier.runId(), true, null);
        ScheduleSql sweep = new ScheduleSql(TenureSchema.quoted(TenureSchema.DEFAULT_SCHEMA));
        try (JdbcBackend.Siblings patient = Fixture.open(fx.pool, patientClaims());
                java.sql.Connection sweeper = fx.pool.getConnection()) {
            sweeper.setAutoCommit(false);
            try (java.sql.PreparedStatement ps = sweeper.prepareStatement(sweep.lockJobs)) {
                ps.setString(1, "1000");
                ps.setArray(2, sweeper.createArrayOf("text", new Object[] {key}));
                ps.executeQuery().close();
            }
            try (java.sql.PreparedStatement ps = sweeper.prepareStatement(sweep.recordMissed)) {
                ps.setString(1, "sweeper");
                ps.setArray(2, sweeper.createArrayOf("text", new Object[] {key}));
                ps.setArray(3, sweeper.createArrayOf("text", new Object[] {"f1"}));
                ps.setArray(4, sweeper.createArrayOf("text", new Object[] {"test: nobody ran it"}));
                ps.executeQuery().close();
            }
            try (java.sql.PreparedStatement ps = sweeper.prepareStatement(sweep.touchJobs)) {
                ps.setArray(1, sweeper.createArrayOf("text", new Object[] {key}));
                ps.executeUpdate();
            }
            java.util.concurrent.ExecutorService claimer = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                java.util.concurrent.Future<FireClaim> late =
                        claimer.submit(() -> patient.runs().claimAndStart(key, "f1", "C", TTL, null));
                org.awaitility.Awaitility.await()
                        .atMost(dev.tenure.testkit.Timing.scaled(Duration.ofSeconds(5)))
                        .until(() -> !fx.query("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                        + "AND query LIKE '%settled_run%' AND datname = current_database()")
                                .isEmpty());
                sweeper.commit();
                FireClaim answer = late.get(dev.tenure.testkit.Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
                assertThat(answer)
                        .as("the fire recorded MISSED while the claim waited")
                        .isInstanceOfSatisfying(
                                dev.tenure.spi.RunLedger.FireStart.AlreadyDone.class,
                                d -> assertThat(d.missed()).isTrue());
            } finally {
                claimer.shutdownNow();
            }
        }
        assertThat(fx.query("SELECT coalesce(owner, '-') FROM tenure.job_execution WHERE job_key = '" + key + "'"))
                .as("not claimed")
                .containsExactly("-");
    }
}
