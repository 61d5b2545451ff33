package dev.tenure;

import java.time.Duration;
import java.util.Optional;

/**
 * The result of one coordinated run: expected results are statuses, not exceptions.
 *
 * @param status   what happened
 * @param epoch    the epoch (database fencing token) the run held, or of the earlier run for a skipped
 *                 completed fire; 0 when none
 * @param owner    the owner id that ran (or holds, or ran earlier); null when unknown
 * @param waited   time spent getting the leases
 * @param ran      time the work ran (zero if it did not run)
 * @param viaFallback true if Valkey was bypassed because it was unreachable (database mode for this run)
 */
public record RunOutcome<T>(Status status, String jobKey, String fireKey, long epoch, String owner,
                            Duration waited, Duration ran, T result, Throwable error, boolean viaFallback) {

    public enum Status {
        /** The work ran and its outcome was recorded under the current epoch. */
        EXECUTED,
        /** Another process holds the job (Valkey lease or database lease). */
        SKIPPED_HELD_ELSEWHERE,
        /** This fire already completed. */
        SKIPPED_ALREADY_DONE,
        /** Waited the policy's bound without getting the job. */
        TIMED_OUT_WAITING,
        /** The work ran but the lease was lost meanwhile; its outcome was rejected as stale. */
        LEASE_LOST,
        /** The work threw; the failure was recorded under the current epoch. */
        FAILED
    }

    public Optional<T> value() {
        return Optional.ofNullable(result);
    }

    public boolean executed() {
        return status == Status.EXECUTED;
    }
}
