package dev.tenure;

import org.jspecify.annotations.Nullable;

/**
 * Work that gets the run's {@link JobContext}: the body of a coordinated job ({@link JobCoordinator#run}). Whatever it
 * throws becomes a {@link RunOutcome.Status#FAILED} outcome. {@link JobConnectionWork} also gets a connection, and
 * {@link ConnectionWork} gets a connection only.
 */
@FunctionalInterface
public interface JobWork<T> {

    @Nullable
    T run(JobContext context) throws Exception;
}
