package dev.tenure;

/** Where a {@link Lease} is in its life. Moves only ACTIVE → RELEASED or ACTIVE → LOST. */
public enum LeaseState {
    /** Held, and its local validity deadline has not passed. */
    ACTIVE,
    /** Released by its holder. */
    RELEASED,
    /** Taken away: a renewal was refused, or validity ran out before a renewal succeeded. */
    LOST
}
