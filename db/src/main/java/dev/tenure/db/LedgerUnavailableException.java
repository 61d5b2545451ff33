package dev.tenure.db;

import dev.tenure.LeaseStoreUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * The database did not answer a ledger operation within its timeouts, or failed it: no connection within the pool's
 * {@code connectionTimeout} (pool exhausted or database down), statement or lock timeout, connection killed, server
 * restarting. Tenure fails closed: a claim that fails this way is not a claim, a renewal that fails this way did not
 * extend the lease.
 *
 * <p>{@link #outcomeUnknown()} tells whether the statement may have taken effect even so (the connection broke
 * after it was sent). For a claim with an unknown outcome, the row may hold the caller's owner id until its TTL:
 * {@link JdbcLeaseStore#releaseIfOwner(String, String)} with the same owner id clears it.
 */
class LedgerUnavailableException extends LeaseStoreUnavailableException {

    private final @Nullable String sqlState;
    private final boolean outcomeUnknown;

    public LedgerUnavailableException(
            String message,
            @Nullable String key,
            @Nullable String sqlState,
            boolean outcomeUnknown,
            @Nullable Throwable cause) {
        super(message, key, cause);
        this.sqlState = sqlState;
        this.outcomeUnknown = outcomeUnknown;
    }

    /** The SQLSTATE of the underlying error (e.g. {@code 57014} statement timeout), or null if there was none. */
    public @Nullable String sqlState() {
        return sqlState;
    }

    /** True if the operation may have been applied although it failed (connection lost after sending). */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }
}
