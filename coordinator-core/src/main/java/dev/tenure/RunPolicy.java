package dev.tenure;

import java.time.Duration;
import java.util.Objects;

/**
 * What a coordinated run does when the job is held elsewhere or its fire already ran (the article's
 * section 21): fail fast, wait up to a bound, skip this fire, or return the earlier outcome.
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

    /** Held elsewhere → {@link RunOutcome.Status#SKIPPED_HELD_ELSEWHERE} at once. */
    public static RunPolicy failFast() {
        return new RunPolicy(Duration.ZERO, false);
    }

    /** Wait up to {@code maxWait} for the holder; then {@link RunOutcome.Status#TIMED_OUT_WAITING}. */
    public static RunPolicy waitUpTo(Duration maxWait) {
        return new RunPolicy(maxWait, false);
    }

    /** For scheduler fires: another node has this fire (or the job), so this node skips it. Same as fail fast. */
    public static RunPolicy skipFire() {
        return failFast();
    }

    /** Like fail fast, but a completed fire reports the earlier run's epoch and owner. */
    public static RunPolicy returnEarlierOutcome() {
        return new RunPolicy(Duration.ZERO, true);
    }
}
