package dev.tenure.db;

import com.zaxxer.hikari.HikariDataSource;
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

/** A fresh database for one test class, a Tenure pool on it, the schema migrated. Close it in {@code @AfterAll}. */
final class Fixture implements AutoCloseable {

    final PostgresDatabase db;
    final HikariDataSource pool;
    final JobLedger ledger;

    private Fixture(PostgresDatabase db, PoolConfig.Builder cfg) {
        this.db = db;
        this.pool = TenureDataSources.hikari(cfg.build());
        TenureSchema.migrate(pool);
        this.ledger = JobLedger.create(pool);
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
        pool.close();
        db.close();
    }
}
