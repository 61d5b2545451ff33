package dev.tenure;

/**
 * The lease store (Valkey, or the database in DB mode) could not be reached or did not answer within the
 * configured timeouts. Tenure fails closed: no lease was granted. Retry later, or check the store's health.
 */
public class LeaseStoreUnavailableException extends TenureException {

    public LeaseStoreUnavailableException(String message, String key, Throwable cause) {
        super(message, key, cause);
    }
}
