package dev.tenure.db;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/** Turns JDBC failures into {@link LedgerUnavailableException}s that say what happened and whether it may have applied. */
final class Faults {

    /** SQLSTATE of a lock wait cut by {@code lock_timeout}. */
    public static final String LOCK_TIMEOUT = "55P03";
    /** SQLSTATE of a statement cut by {@code statement_timeout} (or a cancel request). */
    public static final String QUERY_CANCELED = "57014";
    /** SQLSTATE of a statement the server rolled back to break a deadlock. */
    public static final String DEADLOCK = "40P01";

    private Faults() {}

    /** No connection could be had: nothing was sent, so nothing happened. */
    public static LedgerUnavailableException noConnection(String op, String key, SQLException e) {
        String why = e instanceof SQLTransientConnectionException
                ? "no database connection became free in time (pool exhausted, or the database is unreachable)"
                : "could not connect to the database";
        return new LedgerUnavailableException(
                op + " of '" + key + "' failed: " + why + ": " + e.getMessage(), key, e.getSQLState(), false, e);
    }

    /**
     * A statement failed. Timeouts, lock timeouts and serialization failures rolled the statement back (nothing
     * happened); a broken connection during a write leaves its outcome unknown.
     */
    public static LedgerUnavailableException failed(String op, String key, SQLException e, boolean writes) {
        String state = e.getSQLState();
        boolean rolledBack = LOCK_TIMEOUT.equals(state)
                || QUERY_CANCELED.equals(state)
                || "40001".equals(state)
                || DEADLOCK.equals(state);
        boolean unknown = writes && !rolledBack;
        return new LedgerUnavailableException(
                op + " of '" + key + "' failed (" + describe(state) + ", SQLSTATE " + state + "): " + e.getMessage()
                        + (unknown ? "; the outcome is unknown" : "; nothing was changed"),
                key,
                state,
                unknown,
                e);
    }

    private static String describe(String state) {
        if (state == null) {
            return "driver error";
        }
        if (LOCK_TIMEOUT.equals(state)) {
            return "lock timeout: the row is locked by an open transaction";
        }
        if (QUERY_CANCELED.equals(state)) {
            return "statement timeout";
        }
        if (state.startsWith("08")) {
            return "connection lost";
        }
        if (state.startsWith("57P")) {
            return "server shutting down or connection terminated";
        }
        if (state.startsWith("40")) {
            return "transaction rolled back by the server";
        }
        return "database error";
    }

    /** Wraps an unexpected runtime failure (a bug or a driver oddity) as a typed fault. */
    public static LedgerUnavailableException unexpected(String op, String key, RuntimeException e) {
        return new LedgerUnavailableException(op + " of '" + key + "' failed unexpectedly: " + e, key, null, true, e);
    }
}
