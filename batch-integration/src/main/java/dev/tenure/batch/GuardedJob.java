package dev.tenure.batch;

import dev.tenure.RunMdc;
import dev.tenure.RunOutcome;
import dev.tenure.integration.ClaimedRun;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.JobInterruptedException;
import org.springframework.batch.core.job.parameters.JobParametersIncrementer;
import org.springframework.batch.core.job.parameters.JobParametersValidator;

/**
 * The user's job, as launched by a guard: registers the claimed run for the steps while the job executes, and
 * finishes the run (records the outcome, releases the leases) when the job ends, on whichever thread ran it, so
 * synchronous and asynchronous task executors both release. While the job executes (its steps, unless they run on
 * threads of their own, and the recording of its outcome), the thread's MDC carries the run's {@link RunMdc} keys.
 * Never throws anything of its own into Spring Batch. Thread-safe.
 */
final class GuardedJob implements Job {

    private static final Logger log = LoggerFactory.getLogger(GuardedJob.class);

    private final Job delegate;
    private final ClaimedRun run;
    private final BatchRuns runs;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CompletableFuture<RunOutcome<Void>> outcome = new CompletableFuture<>();
    private volatile @Nullable JobExecution execution;

    GuardedJob(Job delegate, ClaimedRun run, BatchRuns runs) {
        this.delegate = delegate;
        this.run = run;
        this.runs = runs;
    }

    @Override
    public String getName() {
        return delegate.getName();
    }

    @Override
    public boolean isRestartable() {
        return delegate.isRestartable();
    }

    @Override
    public @Nullable JobParametersIncrementer getJobParametersIncrementer() {
        return delegate.getJobParametersIncrementer();
    }

    @Override
    public JobParametersValidator getJobParametersValidator() {
        return delegate.getJobParametersValidator();
    }

    @Override
    public void execute(JobExecution jobExecution) throws JobInterruptedException {
        started.set(true);
        execution = jobExecution;
        runs.register(jobExecution.getId(), run);
        try (RunMdc.Scope log = RunMdc.open(run)) {
            executeAndComplete(jobExecution);
        }
    }

    private void executeAndComplete(JobExecution jobExecution) throws JobInterruptedException {
        Throwable thrown = null;
        try {
            delegate.execute(jobExecution);
        } catch (RuntimeException | Error | JobInterruptedException e) {
            thrown = e;
            throw e;
        } finally {
            runs.remove(jobExecution.getId());
            complete(jobExecution, thrown);
        }
    }

    boolean started() {
        return started.get();
    }

    @Nullable
    JobExecution execution() {
        return execution;
    }

    CompletableFuture<RunOutcome<Void>> outcome() {
        return outcome;
    }

    /** Finishes the run for a job execution that ended (or never ran); idempotent, never throws. */
    void complete(@Nullable JobExecution ended, @Nullable Throwable thrown) {
        if (outcome.isDone()) {
            return;
        }
        Throwable error = thrown;
        if (error == null && ended == null) {
            error = new IllegalStateException("the job execution of '" + run.jobKey() + "' was not created");
        } else if (error == null && ended != null && ended.getStatus() != BatchStatus.COMPLETED) {
            error = new BatchJobNotCompletedException(
                    run.jobKey(), ended.getId(), ended.getStatus(), ended.getExitStatus());
        }
        RunOutcome<Void> o;
        try {
            o = run.finish(null, error);
        } catch (RuntimeException e) {
            log.warn(
                    "could not record the outcome of {} (the leases are released; the next claim abandons the run)",
                    run,
                    e);
            o = run.finish(null, error); // idempotent: the FAILED outcome finish kept
        }
        log.info(
                "{} ended: {}{}",
                run,
                o.status(),
                o.error() == null ? "" : " (" + o.error().getMessage() + ")");
        outcome.complete(o);
    }

    @Override
    public String toString() {
        return "GuardedJob[" + delegate + ", " + run + "]";
    }
}
