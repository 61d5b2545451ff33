package dev.tenure.console;

import dev.tenure.TenureException;
import java.sql.SQLException;

/**
 * The console could not read (or prune) Tenure's tables: the database is unreachable, the statement timed out, or the
 * user lacks a privilege. The message names the operation, the job (if any), the SQLSTATE and what to check.
 */
public class ConsoleDatabaseException extends TenureException {

    /** For {@code what} on {@code key} ({@code *} for all jobs), failed with {@code cause}. */
    public ConsoleDatabaseException(String what, String key, SQLException cause) {
        super(
                what + " failed for '" + key + "': SQLSTATE " + cause.getSQLState() + " " + cause.getMessage()
                        + hint(cause.getSQLState()),
                key,
                cause);
    }

    private static String hint(String state) {
        if ("42501".equals(state)) {
            return ". The database user needs SELECT on Tenure's tables for the read views (and DELETE on job_run for "
                    + "prune; force-release needs what TenureAdmin says)";
        }
        if ("42P01".equals(state) || "3F000".equals(state)) {
            return ". Tenure's schema is missing or named differently: run 'tenure-console migrate' or pass --schema";
        }
        return state != null && state.startsWith("08") ? ". Check the JDBC URL and that Postgres answers" : "";
    }
}
