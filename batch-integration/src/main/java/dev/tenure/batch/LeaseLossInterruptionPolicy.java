package dev.tenure.batch;

import dev.tenure.integration.ClaimedRun;
import org.springframework.batch.core.ExitStatus;
import org.springframework.batch.core.job.JobInterruptedException;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.batch.core.step.StepInterruptionPolicy;
import org.springframework.batch.core.step.ThreadStepInterruptionPolicy;

/**
 * At each chunk boundary, on the step thread: stops the step once its run lost a lease (read from the lease state
 * the watchdog keeps; nothing here writes batch metadata from the watchdog thread). Marks the step terminate-only
 * (so a {@code ChunkOrientedStep} ends STOPPED, not COMPLETED) and records the lease loss in its exit description.
 * Also honours the usual thread interruption and job stop requests. Thread-safe.
 */
final class LeaseLossInterruptionPolicy implements StepInterruptionPolicy {

    /** Start of the exit description of a step stopped by lease loss. */
    static final String LEASE_LOST = "Tenure lease lost";

    private final BatchRuns runs;
    private final StepInterruptionPolicy usual = new ThreadStepInterruptionPolicy();

    LeaseLossInterruptionPolicy(BatchRuns runs) {
        this.runs = runs;
    }

    @Override
    public void checkInterrupted(StepExecution step) throws JobInterruptedException {
        ClaimedRun run = runs.of(step).orElse(null);
        if (run != null && run.isCancelled()) {
            String why = LEASE_LOST + ": job '" + run.jobKey() + "' epoch " + run.epoch() + " (owner " + run.owner()
                    + ") no longer holds its lease; step '" + step.getStepName() + "' stops so the new owner can "
                    + "restart it from its last committed chunk";
            step.setTerminateOnly();
            step.setExitStatus(step.getExitStatus().and(ExitStatus.STOPPED).addExitDescription(why));
            throw new JobInterruptedException(why);
        }
        usual.checkInterrupted(step);
    }
}
