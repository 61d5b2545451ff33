package dev.tenure.db;

import dev.tenure.spi.LeaseKeys;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The checks of the arguments that the stores pass to the rows: job keys, ids, epochs and TTLs, each refused with an
 * {@link IllegalArgumentException} that names the value and the rule, before any database call. Stateless.
 */
final class LedgerArgs {

    /** Longest accepted owner id or fire key, in characters. */
    static final int MAX_ID_LENGTH = 200;

    private LedgerArgs() {}

    static String key(String jobKey) {
        return LeaseKeys.validate(jobKey);
    }

    static String id(String what, String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException(what + " must have 1 to " + MAX_ID_LENGTH + " characters (got "
                    + (value == null
                            ? "null"
                            : value.length() + ": '" + value.substring(0, Math.min(32, value.length())) + "'")
                    + ")");
        }
        return value;
    }

    static long epoch(long epoch) {
        if (epoch < 1) {
            throw new IllegalArgumentException("epoch must be >= 1 (got " + epoch + "); epochs come from claim()");
        }
        return epoch;
    }

    static Duration ttl(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.toMillis() < 10) {
            throw new IllegalArgumentException("ttl must be at least 10 ms (got " + ttl + ")");
        }
        return ttl;
    }

    /** A trace id as kept: null for none, or for one longer than 64 characters (no tracer makes such ids). */
    static @Nullable String traceId(@Nullable String traceId) {
        return traceId == null || traceId.length() > 64 ? null : traceId;
    }
}
