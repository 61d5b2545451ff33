package dev.tenure.batch;

import dev.tenure.integration.ClaimedRun;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.batch.core.scope.context.StepContext;
import org.springframework.batch.core.scope.context.StepSynchronizationManager;
import org.springframework.batch.core.step.StepExecution;

/**
 * The claimed runs of the job executions this process is running, by job execution id: how the step decorators
 * find the run (its epoch and lease) of the step they serve. Thread-safe.
 */
final class BatchRuns {

    private final Map<Long, ClaimedRun> byExecution = new ConcurrentHashMap<>();

    void register(long jobExecutionId, ClaimedRun run) {
        byExecution.put(jobExecutionId, run);
    }

    void remove(long jobExecutionId) {
        byExecution.remove(jobExecutionId);
    }

    Optional<ClaimedRun> of(long jobExecutionId) {
        return Optional.ofNullable(byExecution.get(jobExecutionId));
    }

    Optional<ClaimedRun> of(StepExecution step) {
        return Optional.ofNullable(byExecution.get(step.getJobExecution().getId()));
    }

    /** The run of {@code step}; a {@link BatchFencingException} if the job was not launched by a guard. */
    ClaimedRun require(StepExecution step) {
        return of(step).orElseThrow(() -> new BatchFencingException(
                "step '" + step.getStepName() + "' of job execution "
                        + step.getJobExecution().getId()
                        + " has no Tenure run: launch the job through GuardedJobOperator "
                        + "(of the same TenureBatch) so that its chunks can be fenced",
                null,
                null));
    }

    /** The run of the step executing on this thread (Spring Batch registers it for the step's duration). */
    ClaimedRun requireCurrent() {
        StepContext ctx = StepSynchronizationManager.getContext();
        if (ctx == null) {
            throw new BatchFencingException(
                    "a fenced writer was called outside a Spring Batch step (no step " + "context on thread '"
                            + Thread.currentThread().getName() + "'): use it only as a step's writer",
                    null,
                    null);
        }
        return require(ctx.getStepExecution());
    }
}
