package dev.tenure.db;

import dev.tenure.TenureException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Reads a ledger's own id from {@code tenure_ledger}, the one-row table that migration V7 fills with a random UUID. Every
 * process on the same database and schema reads the same id; another database or schema has another. Stateless.
 */
final class LedgerIds {

    /** SQLSTATE of a table that does not exist. */
    private static final String UNDEFINED_TABLE = "42P01";

    private LedgerIds() {}

    /**
     * The id, in one read. Should the table hold more than one row, every process takes the oldest.
     *
     * @throws TenureException            if the schema is older than version 8, or the table is empty (the message
     *                                    says what to do)
     * @throws LedgerUnavailableException on faults
     */
    static String read(Jdbc jdbc, String schema) {
        Optional<String> id = jdbc.run("read of the ledger id", "tenure_ledger", false, c -> {
            try (PreparedStatement ps = jdbc.prepare(
                            c,
                            "SELECT id::text, to_regclass('\"%1$s\".job_runs') IS NOT NULL FROM \"%1$s\".tenure_ledger "
                                            .formatted(schema)
                                    + "ORDER BY created_at, id LIMIT 1");
                    ResultSet r = ps.executeQuery()) {
                if (!r.next()) {
                    return Optional.<String>empty();
                }
                if (!r.getBoolean(2)) {
                    throw new TenureException(
                            "Tenure's schema '" + schema + "' has no view job_runs: it is older than version 8 (the "
                                    + "running fire on the job row). Migrate it (Tenure.Builder.migrateSchema(true), "
                                    + "or TenureSchema.migrate).",
                            null);
                }
                return Optional.ofNullable(r.getString(1));
            } catch (SQLException e) {
                if (UNDEFINED_TABLE.equals(e.getSQLState())) {
                    throw new TenureException(
                            "Tenure's schema '" + schema + "' has no table tenure_ledger: it is older than version 7. "
                                    + "Migrate it (Tenure.Builder.migrateSchema(true), or TenureSchema.migrate).",
                            null,
                            e);
                }
                throw e;
            }
        });
        return id.orElseThrow(() -> new TenureException(
                "Tenure's table \"" + schema + "\".tenure_ledger is empty: the ledger has no id. Give it one with "
                        + "INSERT INTO \"" + schema + "\".tenure_ledger (id) VALUES (gen_random_uuid()).",
                null));
    }
}
