package dev.tenure;

import java.time.Duration;
import java.util.Objects;

/**
 * What a coordinated run does when the job is held elsewhere or its fire already ran (the article's
 * section 21): skip this fire, wait up to a bound, or return the earlier outcome.
 *
 * @param maxWait             how long to wait for the current holder; zero = do not wait
 * @param reportEarlierRun    when the fire already completed, report that earlier run (its epoch and owner)
 *                            instead of a bare skip
 */
public record RunPolicy(Duration maxWait, boolean reportEarlierRun) {

    public RunPolicy {
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative (got " + maxWait + ")");
        }
    }

    /** Wait up to {@code maxWait} for the holder; then {@link RunOutcome.Status#TIMED_OUT_WAITING}. */
    public static RunPolicy waitUpTo(Duration maxWait) {
        return new RunPolicy(maxWait, false);
    }

    /**
     * Do not wait: if another node holds the job or this fire, the run is
     * {@link RunOutcome.Status#SKIPPED_HELD_ELSEWHERE} at once.
     */
    public static RunPolicy skipFire() {
        return new RunPolicy(Duration.ZERO, false);
    }

    /** Like {@link #skipFire()}, but a completed fire reports the earlier run's epoch and owner. */
    public static RunPolicy returnEarlierOutcome() {
        return new RunPolicy(Duration.ZERO, true);
    }
}
