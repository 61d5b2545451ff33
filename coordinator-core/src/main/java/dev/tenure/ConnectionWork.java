package dev.tenure;

import java.sql.Connection;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * Work that gets a {@link Connection} only: the database work of a fire, run by
 * {@link JobContext#completeInTransaction} inside a fenced transaction that also completes the fire. It must use
 * {@code connection}, and not commit, roll back or close it.
 */
@FunctionalInterface
public interface ConnectionWork<T> {

    @Nullable
    T run(Connection connection) throws SQLException;
}
