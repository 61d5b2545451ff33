package dev.tenure;

import org.jspecify.annotations.Nullable;

/**
 * What the Valkey filter in front of a coordinated run answered: its lease, or none; with none, {@code alreadyDone} says
 * that the store holds the marker of this fire's completion (so the database need not be asked).
 */
record FilterAnswer(@Nullable Lease lease, boolean alreadyDone) {

    static final FilterAnswer NONE = new FilterAnswer(null, false);
    static final FilterAnswer DONE = new FilterAnswer(null, true);
}
