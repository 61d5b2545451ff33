package dev.tenure.boot.autoconfigure;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.PoolConfig;
import dev.tenure.db.TenureDataSources;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The database Tenure's ledger runs on: the application's {@code DataSource} (the default, no pool of its own), or a
 * pool opened for {@code tenure.datasource.url}, which {@link #close()} closes. Not a {@code DataSource} bean itself, so
 * it never competes with the application's. Thread-safe.
 */
public final class TenureDatabase implements AutoCloseable {

    private final DataSource dataSource;
    private final String schema;
    private final HikariDataSource ownPool;

    private TenureDatabase(DataSource dataSource, String schema, HikariDataSource ownPool) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.schema = schema;
        this.ownPool = ownPool;
    }

    /** Tenure's tables in {@code schema} on the application's data source. */
    public static TenureDatabase of(DataSource applicationDataSource, String schema) {
        return new TenureDatabase(applicationDataSource, schema, null);
    }

    /** Tenure's tables in {@code schema} on a pool of its own (closed by {@link #close()}). */
    public static TenureDatabase pooled(PoolConfig pool, String schema) {
        HikariDataSource own = TenureDataSources.hikari(pool);
        return new TenureDatabase(own, schema, own);
    }

    /** The data source of Tenure's ledger. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The schema of Tenure's tables. */
    public String schema() {
        return schema;
    }

    /** True if Tenure runs on a pool of its own ({@code tenure.datasource.url}). */
    public boolean ownPool() {
        return ownPool != null;
    }

    /** Closes Tenure's own pool, if any; never the application's data source. */
    @Override
    public void close() {
        if (ownPool != null) {
            ownPool.close();
        }
    }
}
