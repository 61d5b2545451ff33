package dev.tenure.spi;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * The answer of {@link LeaseStore#tryAcquire}: granted, or held by someone else; for
 * {@link LeaseStore#tryAcquireFire}, also that the fire is done.
 */
public sealed interface AcquireResult {

    /**
     * Granted. {@code fencingToken} is present only when the caller asked for one. {@code othersWaiting} is a
     * hint that callers elsewhere recently found the key held (stores that cannot tell say false).
     */
    record Acquired(OptionalLong fencingToken, boolean othersWaiting) implements AcquireResult {}

    /**
     * Held by {@code owner} for {@code remaining} more (as the store sees it; may be zero or unknown when the
     * store keeps no expiry, then {@link Duration#ZERO}).
     */
    record Held(String owner, Duration remaining) implements AcquireResult {}

    /**
     * Not granted: the key holds the marker that an earlier holder left after the database recorded this fire
     * COMPLETED ({@link LeaseStore#releaseCompleted}). Only {@link LeaseStore#tryAcquireFire} answers it, and only for
     * the fire key of the marker.
     */
    record AlreadyDone(Duration remaining) implements AcquireResult {}

    static AcquireResult acquired(long token) {
        return acquired(token, false);
    }

    static AcquireResult acquired(long token, boolean othersWaiting) {
        return new Acquired(token > 0 ? OptionalLong.of(token) : OptionalLong.empty(), othersWaiting);
    }

    static AcquireResult held(String holder, long remainingMillis) {
        return new Held(holder, Duration.ofMillis(Math.max(0, remainingMillis)));
    }
}
