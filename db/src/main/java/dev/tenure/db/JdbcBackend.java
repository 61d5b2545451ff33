package dev.tenure.db;

import dev.tenure.DatabaseConfig;
import dev.tenure.integration.NodeName;
import dev.tenure.spi.DatabaseBackend;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Tenure's database on Postgres, for {@link dev.tenure.Tenure} (registered in
 * {@code META-INF/services/dev.tenure.spi.DatabaseBackend}): migrates the schema if asked, reads the ledger's id once,
 * then opens the three stores as siblings on one set of rows: a {@link JdbcLeaseStore} (with its release
 * notifications), a {@link JdbcRunLedger} and a {@link JdbcScheduleLedger}. None of them reaches another.
 *
 * <p>Public only because the {@link java.util.ServiceLoader} needs it; applications use {@link dev.tenure.Tenure}.
 */
public final class JdbcBackend implements DatabaseBackend {

    @Override
    public Stores open(
            DataSource dataSource, String schema, boolean migrate, @Nullable String nodeName, DatabaseConfig config) {
        if (migrate) {
            TenureSchema.migrate(dataSource, schema);
        }
        Siblings s = siblings(dataSource, schema, nodeName, config);
        return new Stores(s.leases(), s.runs(), s.schedules());
    }

    /**
     * The stores of {@link #open}, on a schema migrated beforehand, each with its own type (for this package's tests
     * too). Checks the schema's name and the node name, then reads the ledger's id (one statement) before anything
     * starts, so a schema that is too old leaves nothing to close. They share one {@link Jdbc} (the query timeout of
     * {@code config}), one {@link Sql} and one {@link LeaseRows} (the lock timeouts and the node name).
     *
     * @throws dev.tenure.TenureException if the schema is older than version 7 or has no ledger id, saying what to do;
     *                                    a {@link LedgerUnavailableException} if the database cannot be read
     */
    static Siblings siblings(DataSource dataSource, String schema, @Nullable String nodeName, DatabaseConfig config) {
        String quoted = TenureSchema.quoted(schema);
        String node = nodeName == null ? null : NodeName.check(nodeName);
        Jdbc jdbc = new Jdbc(dataSource, config.queryTimeout());
        String ledgerId = LedgerIds.read(jdbc, schema);
        Sql sql = new Sql(quoted);
        LeaseRows leases = new LeaseRows(jdbc, sql, schema, config.claimLockTimeout(), config.renewLockTimeout(), node);
        return new Siblings(
                new JdbcLeaseStore(
                        leases, config, config.listen() ? ReleaseNotifications.start(dataSource, schema) : null),
                new JdbcRunLedger(
                        leases,
                        new RunRows(
                                jdbc, sql, leases, config.claimStatementsInFlight(), config.maxClaimsPerStatement()),
                        new FenceChecks(jdbc, sql, leases),
                        config,
                        ledgerId),
                new JdbcScheduleLedger(jdbc, schema));
    }

    /** The three stores on one schema's rows. Closing it closes the lease store, the only one that holds resources. */
    record Siblings(JdbcLeaseStore leases, JdbcRunLedger runs, JdbcScheduleLedger schedules) implements AutoCloseable {
        @Override
        public void close() {
            leases.close();
        }
    }
}
