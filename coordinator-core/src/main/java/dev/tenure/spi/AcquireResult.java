package dev.tenure.spi;

import java.time.Duration;
import java.util.OptionalLong;

/** The answer of {@link LeaseStore#tryAcquire}: either granted, or held by someone else. */
public sealed interface AcquireResult {

    /** Granted. {@code fencingToken} is present only when the caller asked for one. */
    record Acquired(OptionalLong fencingToken) implements AcquireResult {
    }

    /**
     * Held by {@code holder} for {@code remaining} more (as the store sees it; may be zero or unknown when the
     * store keeps no expiry, then {@link Duration#ZERO}).
     */
    record Held(String holder, Duration remaining) implements AcquireResult {
    }

    static AcquireResult acquired(long token) {
        return new Acquired(token > 0 ? OptionalLong.of(token) : OptionalLong.empty());
    }

    static AcquireResult held(String holder, long remainingMillis) {
        return new Held(holder, Duration.ofMillis(Math.max(0, remainingMillis)));
    }
}
