package dev.tenure;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The result of one coordinated run: expected results are statuses, not exceptions.
 *
 * @param status      what happened
 * @param epoch       the epoch (database fencing token) the run held, or of the earlier run for a skipped
 *                    completed fire; 0 when none
 * @param owner       the owner id that ran (or holds, or ran earlier); null when unknown
 * @param waited      time spent getting the leases
 * @param ran         time the work ran (zero if it did not run)
 * @param result      what the work returned; null when it did not run or returned null
 * @param viaFallback true if Valkey was bypassed because it was unreachable (database mode for this run)
 * @param fenceChecks how many fence checks (including completions) passed while the work ran: 0 for a run that
 *                    ran means its writes were not protected by the fence (see {@code tenure.run.unfenced})
 * @param completedInTransaction true if the fire was completed inside the work's own business transaction
 *                    ({@link JobContext#complete}), so its database effects and "this fire is done" committed together
 */
public record RunOutcome<T>(
        Status status,
        String jobKey,
        String fireKey,
        long epoch,
        @Nullable String owner,
        Duration waited,
        Duration ran,
        @Nullable T result,
        @Nullable Throwable error,
        boolean viaFallback,
        int fenceChecks,
        boolean completedInTransaction) {

    public enum Status {
        /**
         * The work ran and its outcome was recorded under the current epoch; or it completed the fire in its own
         * transaction, which stays recorded even if the lease ran out after that commit.
         */
        EXECUTED,
        /** Another process holds the job (Valkey lease or database lease). */
        SKIPPED_HELD_ELSEWHERE,
        /** This fire already completed. */
        SKIPPED_ALREADY_DONE,
        /**
         * Tenure's sweeper recorded this fire MISSED (its policy skips overdue fires, or it was beyond the catch-up
         * bounds): it is not run late.
         */
        SKIPPED_MISSED,
        /** Waited the policy's bound without getting the job. */
        TIMED_OUT_WAITING,
        /** The work ran but the lease was lost meanwhile; its outcome was rejected as stale. */
        LEASE_LOST,
        /** The work threw; the failure was recorded under the current epoch. */
        FAILED
    }

    /** An outcome of a fire that did not run here (no fence checks, not completed by this process). */
    public static <T> RunOutcome<T> notRun(
            Status status,
            String jobKey,
            String fireKey,
            long epoch,
            @Nullable String owner,
            Duration waited,
            boolean viaFallback) {
        return new RunOutcome<>(
                status, jobKey, fireKey, epoch, owner, waited, Duration.ZERO, null, null, viaFallback, 0, false);
    }

    /** An outcome of a run that began here: its work ran, or was about to, under {@code epoch}. */
    static <T> RunOutcome<T> ranHere(
            Status status,
            String jobKey,
            String fireKey,
            long epoch,
            @Nullable String owner,
            Duration waited,
            Duration ran,
            @Nullable T result,
            @Nullable Throwable error,
            boolean viaFallback,
            int fenceChecks,
            boolean completedInTransaction) {
        return new RunOutcome<>(
                status,
                jobKey,
                fireKey,
                epoch,
                owner,
                waited,
                ran,
                result,
                error,
                viaFallback,
                fenceChecks,
                completedInTransaction);
    }

    public boolean executed() {
        return status == Status.EXECUTED;
    }
}
