package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.DatabaseConfig;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.StaleOwnerException;
import dev.tenure.Tenure;
import dev.tenure.integration.ClaimedRun;
import dev.tenure.integration.RunClaim;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The holder's side of a fire that the sweeper recorded MISSED while it ran: the run row decides, whatever the job row
 * still says. The holder's finish and abandon are LEASE_LOST, its completion is refused with its business write rolled
 * back, and the fire stays MISSED. The sweeper is simulated by its row update while the holder's lease is live, with
 * and without fencing the holder (the job's epoch bumped and its lease cleared), and with the holder's run id kept or
 * replaced by the MISSED record's own (as the sweeper's statement does).
 */
class MissedFireHolderIT {

    private static final AtomicInteger JOBS = new AtomicInteger();

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(MissedFireHolderIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @ParameterizedTest(name = "epoch bumped {0}, run id replaced {1}")
    @CsvSource({"false, false", "false, true", "true, false", "true, true"})
    void finish_afterTheFireWasRecordedMissed_leaseLost_theFireStaysMissed_andTheJobIsFree(
            boolean fenced, boolean newRunId) throws Exception {
        String job = job("finish");
        try (Tenure tenure = tenure()) {
            ClaimedRun run = ((RunClaim.Claimed) tenure.coordinator().begin(job, "f1", RunPolicy.skipFire())).run();
            recordMissed(job, "f1", fenced, newRunId);
            RunOutcome<Object> o = run.finish(null, null);
            System.out.println("finish after MISSED (fenced " + fenced + ", new run id " + newRunId + "): " + o.status()
                    + ", run row " + runRow(job, "f1"));
            assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
            assertThat(runRow(job, "f1")).isEqualTo("MISSED sweeper");
            assertThat(servers.one(
                            "SELECT coalesce(owner, 'free') FROM tenure.job_execution WHERE job_key = '" + job + "'"))
                    .isEqualTo("free");
            assertThat(tenure.coordinator()
                            .run(job, "f1", RunPolicy.skipFire(), ctx -> null)
                            .status())
                    .isEqualTo(RunOutcome.Status.SKIPPED_MISSED);
        }
    }

    @ParameterizedTest(name = "epoch bumped {0}, run id replaced {1}")
    @CsvSource({"false, false", "false, true", "true, false", "true, true"})
    void completeInTransaction_afterTheFireWasRecordedMissed_refused_andTheBusinessWriteRollsBack(
            boolean fenced, boolean newRunId) throws Exception {
        String job = job("complete");
        try (Tenure tenure = tenure()) {
            RunOutcome<Object> o = tenure.coordinator()
                    .run(
                            job,
                            "f1",
                            RunPolicy.skipFire(),
                            ctx -> ctx.completeInTransaction(servers.db.dataSource(), c -> {
                                write(c, job, ctx.epoch());
                                recordMissed(job, "f1", fenced, newRunId);
                                return null;
                            }));
            System.out.println("completeInTransaction after MISSED (fenced " + fenced + ", new run id " + newRunId
                    + "): " + o.status() + " (" + o.error() + ")");
            assertThat(o.error()).isInstanceOf(StaleOwnerException.class);
            assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
            assertThat(businessRows(job)).as("the business write").isZero();
            assertThat(runRow(job, "f1")).isEqualTo("MISSED sweeper");
        }
    }

    @ParameterizedTest(name = "epoch bumped {0}, run id replaced {1}")
    @CsvSource({"false, false", "false, true", "true, false", "true, true"})
    void runInTransaction_afterTheFireWasRecordedMissed_refused_andTheBusinessWriteRollsBack(
            boolean fenced, boolean newRunId) throws Exception {
        String job = job("one-transaction");
        try (Tenure tenure = tenure()) {
            RunOutcome<Object> o = tenure.coordinator()
                    .runInTransaction(job, "f1", RunPolicy.skipFire(), servers.db.dataSource(), (ctx, c) -> {
                        write(c, job, ctx.epoch());
                        recordMissed(job, "f1", fenced, newRunId);
                        return null;
                    });
            System.out.println("runInTransaction after MISSED (fenced " + fenced + ", new run id " + newRunId + "): "
                    + o.status() + " (" + o.error() + ")");
            assertThat(o.error()).isInstanceOf(StaleOwnerException.class);
            assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
            assertThat(businessRows(job)).as("the business write").isZero();
            assertThat(runRow(job, "f1")).isEqualTo("MISSED sweeper");
        }
    }

    /** A holder that shuts down (no drain) with its fire recorded MISSED: its abandon is stale, the fire stays MISSED. */
    @ParameterizedTest(name = "epoch bumped {0}, run id replaced {1}")
    @CsvSource({"false, false", "false, true", "true, false", "true, true"})
    void abandon_afterTheFireWasRecordedMissed_leaseLost_andTheFireStaysMissed(boolean fenced, boolean newRunId)
            throws Exception {
        String job = job("abandon");
        Tenure tenure = tenure();
        ClaimedRun run = ((RunClaim.Claimed) tenure.coordinator().begin(job, "f1", RunPolicy.skipFire())).run();
        recordMissed(job, "f1", fenced, newRunId);
        tenure.close(Duration.ZERO);
        RunOutcome<Object> o = run.finish(null, null);
        System.out.println("abandon after MISSED (fenced " + fenced + ", new run id " + newRunId + "): " + o.status()
                + ", run row " + runRow(job, "f1"));
        assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
        assertThat(runRow(job, "f1")).isEqualTo("MISSED sweeper");
    }

    private static String job(String what) {
        return "missed-" + what + "-" + JOBS.incrementAndGet();
    }

    private static Tenure tenure() {
        return Tenure.builder()
                .dataSource(servers.db.dataSource())
                .migrateSchema(false)
                .database(DatabaseConfig.builder().listen(false).build())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .build();
    }

    /**
     * What the sweeper writes over a RUNNING run: the fire MISSED (under a run id of its own if {@code newRunId}); if
     * {@code fenced}, in the same transaction, the job's epoch bumped and its lease cleared. On its own connection.
     */
    private static void recordMissed(String job, String fire, boolean fenced, boolean newRunId) throws SQLException {
        try (Connection c = servers.db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            // the running fire is on its job row (schema version 8): the MISSED row is the fire's first row
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO tenure.job_run (run_id, job_key, fire_key, "
                    + "epoch, owner, status, started_at, finished_at, error, previous_run_id, previous_status) "
                    + "SELECT CASE WHEN ? THEN gen_random_uuid() ELSE current_run_id END, job_key, run_fire_key, "
                    + "fencing_token, 'sweeper', 'MISSED', clock_timestamp(), clock_timestamp(), "
                    + "'test: recorded missed', current_run_id, 'RUNNING' FROM tenure.job_execution "
                    + "WHERE job_key = ? AND run_fire_key = ? AND status = 'RUNNING'")) {
                ps.setBoolean(1, newRunId);
                ps.setString(2, job);
                ps.setString(3, fire);
                assertThat(ps.executeUpdate())
                        .as("the RUNNING run recorded MISSED")
                        .isEqualTo(1);
            }
            if (fenced) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE tenure.job_execution SET fencing_token = "
                        + "greatest(fencing_token + 1, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint), "
                        + "owner = NULL, node = NULL, status = 'IDLE', lease_expires_at = NULL, current_run_id = NULL, "
                        + "run_fire_key = NULL, run_started_at = NULL, run_trace_id = NULL, "
                        + "updated_at = clock_timestamp() WHERE job_key = ?")) {
                    ps.setString(1, job);
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                }
            }
            c.commit();
        }
    }

    private static void write(Connection c, String job, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO business_ledger VALUES (?, ?)")) {
            ps.setString(1, job);
            ps.setLong(2, epoch);
            ps.executeUpdate();
        }
    }

    private static long businessRows(String job) throws SQLException {
        return servers.count("SELECT count(*) FROM business_ledger WHERE fire_key = '" + job + "'");
    }

    private static String runRow(String job, String fire) throws SQLException {
        return servers.one("SELECT status || ' ' || owner FROM tenure.job_runs WHERE job_key = '" + job
                + "' AND fire_key = '" + fire + "'");
    }
}
