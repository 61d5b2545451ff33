package dev.tenure.db;

/** The status of a row in {@code job_run}. */
enum RunStatus {
    /** Started and not finished; its owner's lease is (or was, until it expired) live. */
    RUNNING,
    /** Finished successfully while its epoch was current. Final: the fire is never run again. */
    COMPLETED,
    /** Finished with an error while its epoch was current. The next attempt of the same fire takes the row over. */
    FAILED,
    /** Its owner lost the lease while it was RUNNING (a newer epoch started a run of the job). Taken over by a retry. */
    ABANDONED,
    /** Its owner reported an outcome after being fenced out; the outcome was not accepted. Taken over by a retry. */
    REJECTED_STALE,
    /** Due and not run: recorded by Tenure's sweeper, with why. Final: the fire is never run late. */
    MISSED
}
