package dev.tenure.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** A fresh Postgres database for one test class (from the test kit) and a small pool on it; {@link #close()} drops it. */
final class TestDatabase implements AutoCloseable {

    private final PostgresDatabase db;
    private final HikariDataSource pool;

    private TestDatabase(PostgresDatabase db) {
        this.db = db;
        this.pool = TenureDataSources.hikari(db.jdbcUrl(), db.username(), db.password());
    }

    static TestDatabase forClass(Class<?> testClass) {
        return new TestDatabase(PostgresDatabases.forClass(testClass));
    }

    PostgresDatabase database() {
        return db;
    }

    HikariDataSource pool() {
        return pool;
    }

    /** Runs each statement. */
    void sql(String... statements) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        }
    }

    /** The first column of the first row of {@code sql}. */
    String query(String sql) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            if (!r.next()) {
                throw new AssertionError("no row from " + sql);
            }
            return r.getString(1);
        }
    }

    @Override
    public void close() {
        pool.close();
        db.close();
    }
}
