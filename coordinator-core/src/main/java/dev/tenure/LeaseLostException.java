package dev.tenure;

import org.jspecify.annotations.Nullable;

/**
 * The lease was lost while its holder still needed it: a renewal was refused ("not yours") or its local
 * validity ran out without a successful renewal. Work done after this point must not be trusted.
 */
public class LeaseLostException extends TenureException {

    private final @Nullable String owner;

    public LeaseLostException(String key, String owner, String reason) {
        this(key, owner, "Lease '" + key + "' of owner " + owner + " was lost: " + reason, null);
    }

    /** For subclasses that write their own message. */
    protected LeaseLostException(String key, @Nullable String owner, String message, @Nullable Throwable cause) {
        super(message, key, cause);
        this.owner = owner;
    }

    public @Nullable String owner() {
        return owner;
    }
}
