package dev.tenure;

import java.time.Duration;
import java.util.Objects;

/**
 * What to do when a lock is held elsewhere (the article's failure policies): fail fast, or wait up to a bound.
 * The caller decides; "skip" and "return the earlier result" are outcomes of the job coordinator.
 *
 * @param maxWait how long to wait for the lock; zero = fail fast
 */
public record LockPolicy(Duration maxWait) {

    public LockPolicy {
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative (got " + maxWait + ")");
        }
    }

    /** One attempt; if held elsewhere, give up at once. */
    public static LockPolicy failFast() {
        return new LockPolicy(Duration.ZERO);
    }

    /** Wait up to {@code wait} for the holder to release, woken early by its release. */
    public static LockPolicy waitUpTo(Duration wait) {
        return new LockPolicy(wait);
    }
}
