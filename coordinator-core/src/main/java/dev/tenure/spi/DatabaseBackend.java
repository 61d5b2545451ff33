package dev.tenure.spi;

import dev.tenure.DatabaseConfig;
import javax.sql.DataSource;

/**
 * Tenure's database: the database lease store and the run ledger on one {@link DataSource}. The {@code tenure-db}
 * module implements it for Postgres; {@link dev.tenure.Tenure} finds it with {@link java.util.ServiceLoader} (listed in
 * {@code META-INF/services/dev.tenure.spi.DatabaseBackend}). Implementations are thread-safe.
 */
public interface DatabaseBackend {

    /** The stores of one database; closing the lease store closes what {@link #open} created (never the data source). */
    record Stores(LeaseStore leaseStore, RunLedger runLedger, ScheduleLedger scheduleLedger) {}

    /**
     * Opens the stores on {@code dataSource}, in {@code schema}; migrates the schema first when {@code migrate}. The
     * stores record {@code nodeName} ({@link dev.tenure.integration.NodeName}; {@link dev.tenure.Tenure} always passes
     * its node's) next to the owner id on every claim and run, and take their lock waits, timeouts and threads from
     * {@code config}. The run ledger reads its
     * {@linkplain RunLedger#ledgerId() id} here, once.
     *
     * @throws dev.tenure.LeaseStoreUnavailableException if the database cannot be reached or migrated
     * @throws dev.tenure.TenureException                if the schema (not migrated here) is older than the library
     */
    Stores open(DataSource dataSource, String schema, boolean migrate, String nodeName, DatabaseConfig config);
}
