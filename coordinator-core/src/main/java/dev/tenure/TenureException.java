package dev.tenure;

import org.jspecify.annotations.Nullable;

/**
 * Root of every exception Tenure throws on purpose. Unchecked: expected results (a lease held elsewhere,
 * a wait that timed out) are values, not exceptions; an exception means a fault or a broken guarantee.
 */
public class TenureException extends RuntimeException {

    private final @Nullable String key;

    public TenureException(String message, @Nullable String key, @Nullable Throwable cause) {
        super(message, cause);
        this.key = key;
    }

    public TenureException(String message, @Nullable String key) {
        this(message, key, null);
    }

    /** The lease or job key concerned, or {@code null} when the fault is not about one key. */
    public @Nullable String key() {
        return key;
    }
}
