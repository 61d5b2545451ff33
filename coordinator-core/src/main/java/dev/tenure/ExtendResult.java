package dev.tenure;

/** What {@link Lease#extend} found. Expected results, not faults: a fault is a {@link LeaseStoreUnavailableException}. */
public enum ExtendResult {
    /** The store now keeps the lease for the new TTL from the call; the local deadline and the renewals follow it. */
    EXTENDED,
    /**
     * The store no longer had the lease as this owner's (it expired there, or another owner took the key): nothing
     * changed in the store, and this lease is now {@link LeaseState#LOST} (its {@linkplain Lease#onLost listeners} ran).
     */
    REFUSED,
    /**
     * The lease was already released or lost here, or its local validity had run out (it is LOST now): nothing was sent
     * to the store.
     */
    NOT_HELD
}
