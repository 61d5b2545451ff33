package dev.tenure.batch;

import dev.tenure.JobContext;
import dev.tenure.JobCoordinator;
import dev.tenure.RunPolicy;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.scope.context.StepContext;
import org.springframework.batch.core.scope.context.StepSynchronizationManager;
import org.springframework.batch.core.step.StepInterruptionPolicy;
import org.springframework.batch.core.step.builder.ChunkOrientedStepBuilder;
import org.springframework.batch.core.step.skip.SkipPolicy;
import org.springframework.batch.core.step.tasklet.Tasklet;
import org.springframework.batch.core.step.tasklet.TaskletStep;
import org.springframework.batch.infrastructure.item.ItemWriter;
import org.springframework.core.retry.RetryPolicy;

/**
 * Tenure for Spring Batch, one per application: the launch guard and the step decorators that share its runs.
 *
 * <pre>{@code
 * TenureBatch batch = TenureBatch.of(tenure, dataSource);   // the DataSource of the batch tables AND business tables
 *
 * @Bean Step settle(JobRepository repo, DataSourceTransactionManager tx) {
 *     return batch.fencedChunks(new StepBuilder("settle", repo).<Entry, Entry>chunk(100).transactionManager(tx)
 *             .reader(reader), writer).build();
 * }
 * BatchLaunch l = batch.guard(jobOperator, jobRepository).launch(job, params);   // SKIPPED_HELD_ELSEWHERE on losers
 * }</pre>
 *
 * <p>The fence check runs on the connection of the step's transaction, so the step's transaction manager must be a
 * {@code DataSourceTransactionManager} on {@code dataSource}; otherwise the chunk fails with a
 * {@link BatchFencingException} before writing. A fenced chunk of a stale owner throws
 * {@code dev.tenure.StaleOwnerException}: the chunk rolls back with its business writes and the step fails.
 *
 * <p>Thread-safe; holds no resources (the caller owns the {@link dev.tenure.Tenure} and the data source). Null
 * arguments are {@link NullPointerException}s naming the argument.
 */
public final class TenureBatch {

    private final JobCoordinator coordinator;
    private final DataSource dataSource;
    private final BatchRuns runs = new BatchRuns();

    private TenureBatch(JobCoordinator coordinator, DataSource dataSource) {
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * @param tenure     the application's Tenure (its database on the same Postgres as {@code dataSource})
     * @param dataSource the DataSource of the Spring Batch tables, the business tables and Tenure's ledger
     */
    public static TenureBatch of(dev.tenure.Tenure tenure, DataSource dataSource) {
        return new TenureBatch(Objects.requireNonNull(tenure, "tenure").coordinator(), dataSource);
    }

    /** The launch guard with {@link RunPolicy#skipFire()}: a loser gets SKIPPED_HELD_ELSEWHERE at once. */
    public GuardedJobOperator guard(JobOperator operator, JobRepository repository) {
        return guard(operator, repository, RunPolicy.skipFire());
    }

    /** The launch guard with {@code policy} (e.g. {@link RunPolicy#waitUpTo} to wait for the current holder). */
    public GuardedJobOperator guard(JobOperator operator, JobRepository repository, RunPolicy policy) {
        return new GuardedJobOperator(operator, repository, coordinator, runs, policy);
    }

    /**
     * {@code repository} with its writes about guarded executions behind the fence check, in one transaction with it
     * (job and step execution updates, execution contexts): a former owner that resumes after a takeover
     * cannot overwrite the new owner's metadata. Give it to the job and step builders and to the {@code JobOperator}.
     * Its transactions join the repository's own when both are on {@code dataSource}.
     */
    public JobRepository fenced(JobRepository repository) {
        return FencedJobRepository.wrap(Objects.requireNonNull(repository, "repository"), dataSource, runs);
    }

    /** {@code writer}, behind the fence check in the chunk transaction. */
    public <T> ItemWriter<T> fenced(ItemWriter<T> writer) {
        return new FencedItemWriter<>(writer, dataSource, runs);
    }

    /** {@code tasklet}, behind the fence check in each of its transactions. */
    public Tasklet fenced(Tasklet tasklet) {
        return new FencedTasklet(tasklet, dataSource, runs);
    }

    /** Stops a step at its next chunk boundary once its run lost a lease: the step ends STOPPED, naming the loss. */
    public StepInterruptionPolicy stopOnLeaseLoss() {
        return new LeaseLossInterruptionPolicy(runs);
    }

    /** A chunk step builder with {@code writer} fenced and {@link #stopOnLeaseLoss()}: call {@code build()} on it. */
    public <I, O> ChunkOrientedStepBuilder<I, O> fencedChunks(
            ChunkOrientedStepBuilder<I, O> builder, ItemWriter<O> writer) {
        return builder.writer(fenced(writer)).interruptionPolicy(stopOnLeaseLoss());
    }

    /** {@code step} with its tasklet fenced and {@link #stopOnLeaseLoss()}; returns the same step. */
    public TaskletStep fenced(TaskletStep step) {
        step.setTasklet(fenced(step.getTasklet()));
        step.setInterruptionPolicy(stopOnLeaseLoss());
        return step;
    }

    /**
     * The run (epoch, lease state, fence check) of the guarded step executing on this thread; empty outside a step or
     * for a job not launched through a guard of this instance. On the job's own thread {@link JobContext#current()}
     * answers the same; this one also answers on the worker threads of a multi-threaded step.
     */
    public Optional<JobContext> currentRun() {
        StepContext ctx = StepSynchronizationManager.getContext();
        return ctx == null ? Optional.empty() : runs.of(ctx.getStepExecution()).map(r -> (JobContext) r);
    }

    /** {@code delegate}, except that fence failures are never skipped (for fault-tolerant steps). */
    public static SkipPolicy neverSkipFenceFailures(SkipPolicy delegate) {
        return StaleOwnerPolicies.neverSkip(delegate);
    }

    /** {@code delegate}, except that fence failures are never retried (for fault-tolerant steps). */
    public static RetryPolicy neverRetryFenceFailures(RetryPolicy delegate) {
        return StaleOwnerPolicies.neverRetry(delegate);
    }
}
