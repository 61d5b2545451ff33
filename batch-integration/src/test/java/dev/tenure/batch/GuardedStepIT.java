package dev.tenure.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.RunOutcome;
import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.core.step.tasklet.TaskletStep;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** One process, real Valkey and Postgres: fenced chunks and tasklets, stop on lease loss, async release. */
class GuardedStepIT {

    private static final int ROWS = 1000;
    private static final Duration TTL = Duration.ofSeconds(2);

    private static ValkeyServer valkey;
    private static PostgresDatabase db;
    private static BatchStack sync;

    @BeforeAll
    static void start() throws Exception {
        valkey = ValkeyServers.standalone();
        db = PostgresDatabases.forClass(GuardedStepIT.class);
        TenureSchema.migrate(db.dataSource());
        BatchStack.createSchema(db.dataSource(), ROWS);
        sync = stack(new SyncTaskExecutor());
    }

    @AfterAll
    static void stop() {
        sync.close();
        db.close();
        valkey.close();
    }

    private static BatchStack stack(org.springframework.core.task.TaskExecutor executor) throws Exception {
        return new BatchStack(
                valkey.address(),
                db.jdbcUrl(),
                db.username(),
                db.password() == null ? "" : db.password(),
                TTL,
                executor);
    }

    private static JobParameters date(String d) {
        return new JobParametersBuilder().addString("businessDate", d).toJobParameters();
    }

    /** Writes as another process would: on its own connection, outside the step's chunk transaction. */
    private static org.springframework.jdbc.core.JdbcTemplate outside() {
        return new org.springframework.jdbc.core.JdbcTemplate(db.dataSource());
    }

    private static int count(String sql, Object... args) {
        return sync.jdbc.queryForObject(sql, Integer.class, args);
    }

    private static StepExecution onlyStep(JobExecution e) {
        return sync.repository
                .getJobExecution(e.getId())
                .getStepExecutions()
                .iterator()
                .next();
    }

    @Test
    void launch_freshJob_settlesEveryRowOnceAndRecordsExecuted() throws Exception {
        BatchLaunch l = sync.tenure
                .guard(sync.operator, sync.repository)
                .launch(sync.settlementJob("fresh", "fresh", 0, id -> {}), date("2024-05-01"));

        RunOutcome<Void> o = l.outcomeNow().orElseThrow();
        assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(o.completedInTransaction())
                .as("the fire completed with the job execution's COMPLETED update")
                .isTrue();
        assertThat(o.fenceChecks()).as("chunks and repository updates fenced").isPositive();
        assertThat(l.execution().orElseThrow().getStatus()).isEqualTo(BatchStatus.COMPLETED);
        assertThat(count("SELECT count(*) FROM settlement WHERE node = 'fresh'"))
                .isEqualTo(ROWS);
        assertThat(count("SELECT count(DISTINCT entry_id) FROM settlement WHERE node = 'fresh'"))
                .isEqualTo(ROWS);
        assertThat(count("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'batch:fresh' AND status = 'COMPLETED'"))
                .isEqualTo(1);

        BatchLaunch again = sync.tenure
                .guard(sync.operator, sync.repository)
                .launch(sync.settlementJob("fresh", "fresh", 0, id -> {}), date("2024-05-01"));
        assertThat(again.launched()).isFalse();
        assertThat(again.outcomeNow().orElseThrow().status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
        assertThat(count("SELECT count(*) FROM batch_job_execution e JOIN batch_job_instance i USING (job_instance_id) "
                        + "WHERE i.job_name = 'fresh'"))
                .isEqualTo(1);
    }

    @Test
    void launch_asyncExecutor_releasesTheLeasesWhenTheJobEnds() throws Exception {
        try (BatchStack async = stack(new SimpleAsyncTaskExecutor("batch-"))) {
            GuardedJobOperator guard = async.tenure.guard(async.operator, async.repository);
            Job job = async.settlementJob("async", "async", 1, id -> {});
            BatchLaunch l = guard.launch(job, date("2024-05-01"));
            assertThat(l.launched()).isTrue();
            BatchLaunch meanwhile = guard.launch(job, date("2024-05-01"));
            assertThat(meanwhile.outcomeNow().orElseThrow().status())
                    .isEqualTo(RunOutcome.Status.SKIPPED_HELD_ELSEWHERE);

            RunOutcome<Void> o =
                    l.awaitOutcome(Timing.scaled(Duration.ofSeconds(60))).orElseThrow();
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(
                            count(
                                    "SELECT count(*) FROM tenure.job_execution WHERE job_key = 'batch:async' AND owner IS NULL"))
                    .isEqualTo(1);
            Object lease = valkey.command("GET", "{tenure:batch:async}:lease");
            assertThat(lease == null || lease.toString().startsWith("d:"))
                    .as("released (a completed fire leaves its marker): %s", lease)
                    .isTrue();
            assertThat(count("SELECT count(*) FROM settlement WHERE node = 'async'"))
                    .isEqualTo(ROWS);
        }
    }

    @Test
    void chunkStep_databaseLeaseTakenAway_theChunkAndItsBookkeepingAreRefused_andTheNextLaunchFinishesIt()
            throws Exception {
        GuardedJobOperator guard = sync.tenure.guard(sync.operator, sync.repository);
        AtomicInteger chunks = new AtomicInteger();
        Job job = sync.settlementJob("lost", "lost", 2, id -> {
            if (chunks.incrementAndGet() == 3) { // the database lease is taken away (the authority) during chunk 3
                outside()
                        .update(
                                "UPDATE tenure.job_execution SET fencing_token = fencing_token + 1 WHERE job_key = 'batch:lost'");
                sleepPastTheNextRenewal();
            }
        });
        BatchLaunch l = guard.launch(job, date("2024-05-01"));

        JobExecution e = l.execution().orElseThrow();
        StepExecution step = onlyStep(e);
        System.out.printf(
                "lease taken away: job %s, step %s, %d items written by the step's count, %d rows committed%n",
                e.getStatus(),
                step.getStatus(),
                step.getWriteCount(),
                count("SELECT count(*) FROM settlement WHERE node = 'lost'"));
        assertThat(e.getStatus()).isIn(BatchStatus.FAILED, BatchStatus.STOPPED);
        assertThat(e.getAllFailureExceptions().toString() + step.getExitStatus().getExitDescription())
                .containsAnyOf("Stale owner of job 'batch:lost'", "Tenure lease lost");
        assertThat(count("SELECT count(*) FROM settlement WHERE node = 'lost'"))
                .as("chunks 1 and 2 only: chunk 3 " + "was refused with its bookkeeping")
                .isEqualTo(2L * BatchStack.CHUNK);
        assertThat(l.outcomeNow().orElseThrow().status()).isIn(RunOutcome.Status.FAILED, RunOutcome.Status.LEASE_LOST);

        BatchLaunch restart = guard.launch(sync.settlementJob("lost", "lost", 0, id -> {}), date("2024-05-01"));
        assertThat(restart.outcomeNow().orElseThrow().status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(count("SELECT count(*) FROM settlement WHERE node = 'lost'")).isEqualTo(ROWS);
        assertThat(count("SELECT count(DISTINCT entry_id) FROM settlement WHERE node = 'lost'"))
                .isEqualTo(ROWS);
    }

    @Test
    void launch_executionLeftUnknownByAStaleOwner_isMarkedFailedAndTheInstanceRestarts() throws Exception {
        GuardedJobOperator guard = sync.tenure.guard(sync.operator, sync.repository);
        AtomicInteger chunks = new AtomicInteger();
        Job job = sync.settlementJob("zombie", "zombie", 1, id -> {
            if (chunks.incrementAndGet() == 2) {
                outside()
                        .update(
                                "UPDATE tenure.job_execution SET fencing_token = fencing_token + 1 WHERE job_key = 'batch:zombie'");
            }
        });
        BatchLaunch first = guard.launch(job, date("2024-05-01"));
        long stale = first.execution().orElseThrow().getId();
        // what a resumed stale owner's unfenced job bookkeeping leaves behind (its chunk itself was fenced out)
        sync.jdbc.update(
                "UPDATE batch_job_execution SET status = 'UNKNOWN', exit_code = 'UNKNOWN' WHERE job_execution_id = ?",
                stale);
        sync.jdbc.update(
                "UPDATE batch_step_execution SET status = 'UNKNOWN', exit_code = 'UNKNOWN' WHERE job_execution_id = ?",
                stale);

        BatchLaunch restart = guard.launch(sync.settlementJob("zombie", "zombie", 0, id -> {}), date("2024-05-01"));

        assertThat(restart.outcomeNow().orElseThrow().status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(sync.repository.getJobExecution(stale).getStatus()).isEqualTo(BatchStatus.FAILED);
        assertThat(sync.repository.getJobExecution(stale).getExitStatus().getExitDescription())
                .contains("Tenure");
        assertThat(count("SELECT count(*) FROM settlement WHERE node = 'zombie'"))
                .isEqualTo(ROWS);
        assertThat(count("SELECT count(DISTINCT entry_id) FROM settlement WHERE node = 'zombie'"))
                .isEqualTo(ROWS);
    }

    @Test
    void taskletStep_databaseLeaseTakenAway_endsWithoutAnotherCommit_namingTheLoss() throws Exception {
        AtomicInteger iterations = new AtomicInteger();
        DataSourceTransactionManager tx = new DataSourceTransactionManager(sync.dataSource);
        TaskletStep step = sync.tenure.fenced(new StepBuilder("tick", sync.repository)
                .tasklet(
                        (c, ctx) -> {
                            int i = iterations.incrementAndGet();
                            sync.jdbc.update(
                                    "INSERT INTO settlement(entry_id, amount_cents, epoch, node) VALUES (?, 0, 0, 'tasklet')",
                                    i);
                            if (i == 3) {
                                outside()
                                        .update(
                                                "UPDATE tenure.job_execution SET fencing_token = fencing_token + 1 WHERE job_key = 'batch:tasklet'");
                                sleepPastTheNextRenewal();
                            }
                            Thread.sleep(100);
                            return i < 100 ? RepeatStatus.CONTINUABLE : RepeatStatus.FINISHED;
                        },
                        tx)
                .build());
        Job job = new JobBuilder("tasklet", sync.repository).start(step).build();

        BatchLaunch l = sync.tenure.guard(sync.operator, sync.repository).launch(job, date("2024-05-01"));

        StepExecution s = onlyStep(l.execution().orElseThrow());
        System.out.printf(
                "tasklet lease lost after %d iterations: step %s (%s)%n",
                iterations.get(), s.getStatus(), s.getExitStatus().getExitDescription());
        assertThat(l.execution().orElseThrow().getStatus()).isIn(BatchStatus.FAILED, BatchStatus.STOPPED);
        assertThat(l.execution().orElseThrow().getAllFailureExceptions().toString()
                        + s.getExitStatus().getExitDescription())
                .containsAnyOf("Stale owner of job 'batch:tasklet'", "Tenure lease lost");
        assertThat(iterations.get()).isLessThan(100);
        assertThat(count("SELECT count(*) FROM settlement WHERE node = 'tasklet'"))
                .isEqualTo(s.getCommitCount());
    }

    @Test
    void fencedWriter_epochMovedOn_chunkRollsBackWithItsWritesAndStepFails() throws Exception {
        AtomicBoolean bumped = new AtomicBoolean();
        Job job = new JobBuilder("stale", sync.repository)
                .start(sync.settleStep("stale", 0, id -> {}, e -> {
                    if (e.id() == 3 * BatchStack.CHUNK + 1
                            && bumped.compareAndSet(false, true)) { // a newer owner's claim
                        outside()
                                .update(
                                        "UPDATE tenure.job_execution SET fencing_token = fencing_token + 1 WHERE job_key = 'batch:stale'");
                    }
                }))
                .build();

        BatchLaunch l = sync.tenure.guard(sync.operator, sync.repository).launch(job, date("2024-05-01"));

        StepExecution s =
                l.execution().orElseThrow().getStepExecutions().iterator().next();
        System.out.printf(
                "stale owner: step %s, %d chunks committed, exit %s%n",
                s.getStatus(),
                s.getCommitCount(),
                s.getExitStatus().getExitDescription().lines().findFirst().orElse(""));
        // FAILED by the fenced chunk, then UNKNOWN in memory: Spring Batch's own final update of the step was refused
        assertThat(s.getStatus()).isEqualTo(BatchStatus.UNKNOWN);
        assertThat(onlyStep(l.execution().orElseThrow()).getStatus())
                .as("its final step update was fenced out too: "
                        + "the row stays as last committed, for the new owner to recover")
                .isEqualTo(BatchStatus.STARTED);
        StepExecution inMemory = s;
        assertThat(inMemory.getFailureExceptions())
                .anySatisfy(t -> assertThat(t).hasRootCauseInstanceOf(dev.tenure.StaleOwnerException.class));
        assertThat(count("SELECT count(*) FROM settlement WHERE node = 'stale'"))
                .isEqualTo(3 * BatchStack.CHUNK);
        assertThat(l.outcomeNow().orElseThrow().status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
    }

    @Test
    void fencedRepository_staleOwnersBookkeeping_doesNotOverwriteTheNewOwnersRecovery() throws Exception {
        AtomicBoolean tookOver = new AtomicBoolean();
        Job job = new JobBuilder("overwrite", sync.repository)
                .start(sync.settleStep("overwrite", 0, id -> {}, e -> {
                    if (e.id() == 3 * BatchStack.CHUNK + 1 && tookOver.compareAndSet(false, true)) {
                        // what a new owner does: claims (a newer epoch) and recovers this execution
                        long execution =
                                org.springframework.batch.core.scope.context.StepSynchronizationManager.getContext()
                                        .getStepExecution()
                                        .getJobExecutionId();
                        outside()
                                .update(
                                        "UPDATE tenure.job_execution SET fencing_token = fencing_token + 1 WHERE job_key = 'batch:overwrite'");
                        outside()
                                .update(
                                        "UPDATE batch_job_execution SET status = 'FAILED', exit_code = 'FAILED', "
                                                + "exit_message = 'recovered by the new owner', end_time = now(), version = version + 1 "
                                                + "WHERE job_execution_id = ?",
                                        execution);
                    }
                }))
                .build();

        BatchLaunch l = sync.tenure.guard(sync.operator, sync.repository).launch(job, date("2024-05-01"));

        long id = l.execution().orElseThrow().getId();
        assertThat(sync.jdbc.queryForObject(
                        "SELECT exit_message FROM batch_job_execution WHERE job_execution_id = ?", String.class, id))
                .as("the stale owner's final job update was fenced out")
                .isEqualTo("recovered by the new owner");
        assertThat(count("SELECT count(*) FROM settlement WHERE node = 'overwrite'"))
                .isEqualTo(3 * BatchStack.CHUNK);
        assertThat(l.outcomeNow().orElseThrow().status()).isIn(RunOutcome.Status.FAILED, RunOutcome.Status.LEASE_LOST);
    }

    @Test
    void launch_jobWithIncrementer_isRefusedNamingTheJob() throws Exception {
        Job job = new JobBuilder("incremented", sync.repository)
                .incrementer(p -> new JobParametersBuilder(p).addLong("run", 1L).toJobParameters())
                .start(sync.settleStep("inc", 0, id -> {}))
                .build();
        GuardedJobOperator guard = sync.tenure.guard(sync.operator, sync.repository);

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> guard.launch(job, date("2024-05-01")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'incremented'")
                .hasMessageContaining("Incrementer");
        assertThat(count("SELECT count(*) FROM batch_job_instance WHERE job_name = 'incremented'"))
                .isZero();
    }

    /** The watchdog's next renewal (every third of the TTL) finds the lease lost before the step goes on. */
    private static void sleepPastTheNextRenewal() {
        try {
            Thread.sleep(TTL.toMillis()); // unscaled: a wait for the watchdog, not a bound
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
