package dev.tenure;

/**
 * An acquire request failed in a way that leaves its outcome unknown: the request timed out or the
 * connection broke after it was sent, so the store may still have executed it. Tenure does not treat the
 * lease as held; it has already scheduled a release-if-mine for the owner id below, so no orphan lease
 * outlives its TTL unnoticed.
 */
public class LeaseOutcomeUnknownException extends LeaseStoreUnavailableException {

    private final String owner;

    public LeaseOutcomeUnknownException(String key, String owner, Throwable cause) {
        super(
                "Acquire of lease '" + key + "' for owner " + owner + " has an unknown outcome ("
                        + (cause == null ? "no answer" : cause.getMessage())
                        + "); the lease is not considered held and a release-if-mine was scheduled",
                key,
                cause);
        this.owner = owner;
    }

    /** The owner id the unknown request used; a release with it is safe. */
    public String owner() {
        return owner;
    }
}
