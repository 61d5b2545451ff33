package dev.tenure;

/** What {@link Lease#release()} found. */
public enum ReleaseResult {
    /** This call released the lease in the store. */
    RELEASED,
    /** An earlier call had already released it; nothing was done. */
    ALREADY_RELEASED,
    /** The lease had been lost before release (expired, refused or taken over); the store was not changed for anyone else. */
    LOST,
    /** The store did not confirm the release (unreachable); the lease will expire by its TTL. */
    UNCONFIRMED
}
