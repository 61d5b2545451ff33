package dev.tenure.db;

import dev.tenure.DatabaseConfig;
import dev.tenure.spi.DatabaseBackend;
import javax.sql.DataSource;

/**
 * Tenure's database on Postgres, for {@link dev.tenure.Tenure} (registered in
 * {@code META-INF/services/dev.tenure.spi.DatabaseBackend}): migrates the schema if asked, then a {@link JdbcLeaseStore}
 * (with its release notifications) and a {@link JdbcRunLedger} on the same rows, which reads the ledger's
 * id once.
 */
public final class JdbcBackend implements DatabaseBackend {

    @Override
    public Stores open(DataSource dataSource, String schema, boolean migrate, String nodeName, DatabaseConfig config) {
        if (migrate) {
            TenureSchema.migrate(dataSource, schema);
        }
        JdbcLeaseStore.Builder b =
                JdbcLeaseStore.builder(dataSource).schema(schema).config(config);
        if (nodeName != null) {
            b.nodeName(nodeName);
        }
        JdbcLeaseStore store = b.build();
        JdbcRunLedger runs;
        try {
            runs = new JdbcRunLedger(store);
        } catch (RuntimeException | Error e) {
            store.close();
            throw e;
        }
        return new Stores(store, runs, new JdbcScheduleLedger(dataSource, schema, config.queryTimeout()));
    }
}
