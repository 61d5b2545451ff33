package dev.tenure.batch;

import dev.tenure.TenureException;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.ExitStatus;

/**
 * The error a guarded launch records in Tenure's run ledger when the Spring Batch job ended other than
 * {@link BatchStatus#COMPLETED} (FAILED, STOPPED, ...): the fire stays open, so the next claim takes it over and
 * restarts the job instance from its last committed chunk. Never thrown into Spring Batch; it appears as
 * {@link dev.tenure.RunOutcome#error()}.
 */
public class BatchJobNotCompletedException extends TenureException {

    private final transient BatchStatus status;
    private final transient ExitStatus exitStatus;

    /**
     * @param jobKey     the Tenure job key
     * @param executionId the job execution's id
     * @param status     how the job execution ended (not null)
     * @param exitStatus its exit status (not null)
     */
    public BatchJobNotCompletedException(String jobKey, long executionId, BatchStatus status, ExitStatus exitStatus) {
        super(
                "Spring Batch job execution " + executionId + " of '" + jobKey + "' ended " + status + " ("
                        + exitStatus.getExitCode() + ": " + exitStatus.getExitDescription()
                        + "); the fire stays open and the "
                        + "next launch restarts it",
                jobKey);
        this.status = status;
        this.exitStatus = exitStatus;
    }

    /** How the job execution ended. */
    public BatchStatus status() {
        return status;
    }

    /** The job execution's exit status. */
    public ExitStatus exitStatus() {
        return exitStatus;
    }
}
