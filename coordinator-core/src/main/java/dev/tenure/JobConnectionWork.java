package dev.tenure;

import java.sql.Connection;
import org.jspecify.annotations.Nullable;

/**
 * Work that gets the run's {@link JobContext} and a {@link Connection}: the work of a run that is one database
 * transaction ({@link JobCoordinator#runInTransaction}). It runs on {@code connection}, inside the transaction that
 * then completes the fire and releases the job, and must not commit, roll back or close it. Whatever it throws rolls
 * the transaction back and becomes a {@link RunOutcome.Status#FAILED} outcome.
 */
@FunctionalInterface
public interface JobConnectionWork<T> {

    @Nullable
    T run(JobContext context, Connection connection) throws Exception;
}
