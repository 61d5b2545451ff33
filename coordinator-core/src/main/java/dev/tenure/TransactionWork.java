package dev.tenure;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The database work of a fire, run by {@link JobContext#completeInTransaction} inside a fenced transaction that also
 * completes the fire. It must use {@code connection} (and not commit, roll back or close it).
 */
@FunctionalInterface
public interface TransactionWork<T> {

    T run(Connection connection) throws SQLException;
}
