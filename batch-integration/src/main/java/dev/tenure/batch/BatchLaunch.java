package dev.tenure.batch;

import dev.tenure.RunOutcome;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.batch.core.job.JobExecution;

/**
 * What a {@link GuardedJobOperator#launch} did. Either this process launched the job ({@link #execution()} present;
 * the outcome completes when the job ends and the run is finished: at once for a synchronous task executor), or it
 * did not ({@link #execution()} empty, no Spring Batch metadata written; the outcome is already complete with
 * {@link RunOutcome.Status#SKIPPED_HELD_ELSEWHERE}, {@link RunOutcome.Status#SKIPPED_ALREADY_DONE} or
 * {@link RunOutcome.Status#TIMED_OUT_WAITING}).
 *
 * <p>Outcome statuses of a launched job: {@link RunOutcome.Status#EXECUTED} (the job COMPLETED and the fire is
 * recorded done), {@link RunOutcome.Status#FAILED} (the job ended FAILED/STOPPED or could not start; the error says
 * why, and the next launch restarts it), {@link RunOutcome.Status#LEASE_LOST} (another process took the job over).
 *
 * <p>Immutable and thread-safe; never null fields except as documented.
 */
public final class BatchLaunch {

    private final @Nullable JobExecution execution;
    private final CompletableFuture<RunOutcome<Void>> outcome;

    BatchLaunch(@Nullable JobExecution execution, CompletableFuture<RunOutcome<Void>> outcome) {
        this.execution = execution;
        this.outcome = Objects.requireNonNull(outcome, "outcome");
    }

    static BatchLaunch notLaunched(RunOutcome<Void> outcome) {
        return new BatchLaunch(null, CompletableFuture.completedFuture(outcome));
    }

    /** True if this process created a job execution. */
    public boolean launched() {
        return execution != null;
    }

    /** The job execution this process created, if it launched the job. */
    public Optional<JobExecution> execution() {
        return Optional.ofNullable(execution);
    }

    /** Completes with the run's outcome once the job ended and the leases are released (never exceptionally). */
    public CompletionStage<RunOutcome<Void>> completion() {
        return outcome.minimalCompletionStage();
    }

    /** The outcome if the run is finished already. */
    public Optional<RunOutcome<Void>> outcomeNow() {
        return Optional.ofNullable(outcome.getNow(null));
    }

    /**
     * Waits up to {@code timeout} for the outcome; empty if the job is still running then (or this thread was
     * interrupted, whose flag is kept).
     */
    public Optional<RunOutcome<Void>> awaitOutcome(Duration timeout) {
        try {
            return Optional.of(outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            throw new IllegalStateException("a launch outcome never completes exceptionally", e);
        }
    }

    @Override
    public String toString() {
        return "BatchLaunch[execution=" + (execution == null ? "none" : execution.getId()) + ", outcome="
                + outcomeNow().map(o -> o.status().name()).orElse("running") + "]";
    }
}
