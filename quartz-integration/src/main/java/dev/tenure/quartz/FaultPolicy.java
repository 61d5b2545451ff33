package dev.tenure.quartz;

/**
 * What a fire does when Tenure cannot decide whether it may run: Valkey and the database unreachable, a timeout, a
 * bug. Whatever the choice, the fault is logged, counted, and never thrown into Quartz.
 */
public enum FaultPolicy {
    /** Fail closed (the default): the fire is vetoed (listeners) or skipped (job factory); the trigger stays healthy. */
    SKIP_FIRE,
    /**
     * Fail open: the job runs without a lease, without an epoch and without a fence. Only for jobs that are harmless
     * when run on several nodes at once; {@code QuartzCoordination.runOf(context)} is empty for such a run.
     */
    RUN_UNCOORDINATED
}
