package dev.tenure;

import org.jspecify.annotations.Nullable;

/**
 * The lease store (Valkey, or the database in the database mode) could not be reached or did not answer within the
 * configured timeouts. Tenure fails closed: no lease was granted. Retry later, or check the store's health.
 */
public class LeaseStoreUnavailableException extends TenureException {

    public LeaseStoreUnavailableException(String message, @Nullable String key, @Nullable Throwable cause) {
        super(message, key, cause);
    }
}
