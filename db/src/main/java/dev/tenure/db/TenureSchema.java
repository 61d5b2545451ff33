package dev.tenure.db;

import dev.tenure.TenureException;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Tenure's tables, managed by Flyway with Tenure's own migrations ({@value #LOCATION}) and its own history table
 * ({@value #HISTORY_TABLE}), so they never mix with the host application's Flyway history, even in the same schema.
 *
 * <pre>{@code
 * TenureSchema.migrate(dataSource);              // schema "tenure", created if missing
 * TenureSchema.migrate(dataSource, "jobs");      // or any schema name matching [a-z_][a-z0-9_]{0,62}
 * }</pre>
 *
 * Safe to call on every start of every instance: applied migrations are skipped, and concurrent callers are
 * serialised by Flyway's Postgres advisory lock. Every statement of the migrations names the schema; none depends on
 * {@code search_path}. Stateless and thread-safe.
 */
public final class TenureSchema {

    /** The schema used when none is given. */
    public static final String DEFAULT_SCHEMA = "tenure";
    /** Tenure's Flyway history table, in the Tenure schema. */
    public static final String HISTORY_TABLE = "tenure_schema_history";
    /** Where Tenure's migrations live on the class path. */
    public static final String LOCATION = "classpath:dev/tenure/db/migration";

    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private TenureSchema() {}

    /** What {@link #migrate} did. {@code version} is the schema version afterwards. */
    public record Migration(String schema, String version, int applied) {}

    /** Migrates schema {@value #DEFAULT_SCHEMA}. */
    public static Migration migrate(DataSource dataSource) {
        return migrate(dataSource, DEFAULT_SCHEMA);
    }

    /**
     * Creates {@code schema} if missing and applies Tenure's pending migrations to it.
     *
     * @throws IllegalArgumentException if the schema name is not a plain lower-case identifier
     * @throws TenureException          if Flyway fails (the message says why; nothing half-applied stays committed
     *                                  because Postgres runs each migration in a transaction)
     */
    public static Migration migrate(DataSource dataSource, String schema) {
        Objects.requireNonNull(dataSource, "dataSource");
        String name = checkName(schema);
        try {
            MigrateResult r = flyway(dataSource, name).migrate();
            String version = r.targetSchemaVersion != null ? r.targetSchemaVersion : r.initialSchemaVersion;
            return new Migration(name, version, r.migrationsExecuted);
        } catch (FlywayException e) {
            throw new TenureException("Migrating Tenure's schema '" + name + "' failed: " + e.getMessage(), null, e);
        }
    }

    static Flyway flyway(DataSource dataSource, String schema) {
        return Flyway.configure(TenureSchema.class.getClassLoader())
                .dataSource(dataSource)
                .schemas(schema)
                .defaultSchema(schema)
                .createSchemas(true)
                .table(HISTORY_TABLE)
                .locations(LOCATION)
                .failOnMissingLocations(true)
                .placeholders(Map.of("schema", quoted(schema)))
                // The schema may already hold the host's tables (and its own Flyway history): start from an empty
                // baseline (version 0) so that every Tenure migration still runs there.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .baselineDescription("<< Tenure baseline >>")
                .validateMigrationNaming(true)
                .cleanDisabled(true)
                .load();
    }

    /**
     * Returns {@code schema} if it is a plain lower-case Postgres identifier ({@code [a-z_][a-z0-9_]{0,62}}).
     *
     * @throws IllegalArgumentException naming the value and the rule
     */
    public static String checkName(String schema) {
        if (schema == null || !NAME.matcher(schema).matches()) {
            throw new IllegalArgumentException("schema name must match [a-z_][a-z0-9_]{0,62} (lower case letters, "
                    + "digits and underscores, not starting with a digit); got "
                    + (schema == null ? "null" : "'" + schema + "'"));
        }
        return schema;
    }

    /** The schema name as a quoted identifier, for SQL text. */
    static String quoted(String schema) {
        return "\"" + checkName(schema) + "\"";
    }
}
