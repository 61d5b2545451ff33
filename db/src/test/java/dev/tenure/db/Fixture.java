package dev.tenure.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.DatabaseConfig;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.PostgresSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A fresh database for one test class, a Tenure pool on it, the schema migrated, and the lease store and the run ledger
 * that {@link JdbcBackend} opens on it (without LISTEN: waiters of {@link #leases} poll). Close it in {@code @AfterAll}.
 */
final class Fixture implements AutoCloseable {

    /** Default settings without LISTEN. */
    static final DatabaseConfig NO_LISTEN =
            DatabaseConfig.builder().listen(false).build();

    final PostgresDatabase db;
    final HikariDataSource pool;
    final JdbcLeaseStore leases;
    final JdbcRunLedger runs;

    private Fixture(PostgresDatabase db, PoolConfig.Builder cfg) {
        this.db = db;
        this.pool = TenureDataSources.hikari(cfg.build());
        TenureSchema.migrate(pool);
        JdbcBackend.Siblings stores = open(pool, NO_LISTEN);
        this.leases = stores.leases();
        this.runs = stores.runs();
    }

    /** The stores {@link JdbcBackend} opens on schema {@code tenure} of {@code dataSource} (the caller closes them). */
    static JdbcBackend.Siblings open(DataSource dataSource, DatabaseConfig config) {
        return JdbcBackend.siblings(dataSource, TenureSchema.DEFAULT_SCHEMA, null, config);
    }

    /**
     * The rows of schema {@code tenure} of {@code dataSource} with the lock timeouts of {@code config}, as
     * {@link JdbcBackend} makes them for its stores, but without reading the ledger's id: nothing is connected.
     */
    static LeaseRows rows(DataSource dataSource, DatabaseConfig config) {
        Jdbc jdbc = new Jdbc(dataSource, config.queryTimeout());
        Sql sql = new Sql(TenureSchema.quoted(TenureSchema.DEFAULT_SCHEMA));
        return new LeaseRows(
                jdbc, sql, TenureSchema.DEFAULT_SCHEMA, config.claimLockTimeout(), config.renewLockTimeout(), null);
    }

    /** The lease store on schema {@code tenure} of {@code dataSource}, with default settings and LISTEN. */
    static JdbcLeaseStore store(DataSource dataSource) {
        return store(dataSource, DatabaseConfig.builder().build());
    }

    /** The lease store on schema {@code tenure} of {@code dataSource} (the caller closes it). */
    static JdbcLeaseStore store(DataSource dataSource, DatabaseConfig config) {
        return open(dataSource, config).leases();
    }

    static Fixture forClass(Class<?> testClass) {
        PostgresDatabase db = PostgresDatabases.forClass(testClass);
        return new Fixture(db, poolConfig(db));
    }

    static Fixture forClass(Class<?> testClass, PostgresSource source) {
        PostgresDatabase db = PostgresDatabases.forClass(testClass, source);
        return new Fixture(db, poolConfig(db));
    }

    static PoolConfig.Builder poolConfig(PostgresDatabase db) {
        return PoolConfig.builder(db.jdbcUrl())
                .user(db.username())
                .password(db.password())
                .statementTimeout(Duration.ofSeconds(5));
    }

    /** A new pool on the same database with other settings (the caller closes it). */
    HikariDataSource pool(PoolConfig.Builder cfg) {
        return TenureDataSources.hikari(cfg.build());
    }

    /** A plain connection (not pooled) to the test database. */
    Connection connect() throws SQLException {
        return db.dataSource().getConnection();
    }

    /** Runs {@code sql} on a fresh connection and returns the first column of every row as strings. */
    List<String> query(String sql) {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    void execute(String sql) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        leases.close();
        pool.close();
        db.close();
    }
}
