package dev.tenure.it;

import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The servers of a coordinator test class: a standalone Valkey and the class's own Postgres database with
 * Tenure's schema and the workers' {@code business_ledger} table.
 */
final class CoordinatorServers implements AutoCloseable {

    final ValkeyServer valkey;
    final PostgresDatabase db;

    CoordinatorServers(Class<?> testClass) throws SQLException {
        valkey = ValkeyServers.standalone();
        db = PostgresDatabases.forClass(testClass);
        TenureSchema.migrate(db.dataSource());
        execute("CREATE TABLE business_ledger (fire_key text PRIMARY KEY, epoch bigint NOT NULL)");
    }

    void execute(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** The first column of the first row of {@code sql} on the class's database (null if no row). */
    String one(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            return r.next() ? r.getString(1) : null;
        }
    }

    /** The database's clock now, truncated to {@code field} ({@code second}, {@code minute}: date_trunc's fields). */
    java.time.Instant databaseNow(String field) throws SQLException {
        return java.time.Instant.parse(one("SELECT to_char(date_trunc('" + field + "', clock_timestamp()) AT TIME ZONE "
                + "'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"));
    }

    /** The first column of every row of {@code sql}. */
    java.util.List<String> strings(String sql) throws SQLException {
        java.util.List<String> out = new java.util.ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    /** {@link #one} of a count. */
    long count(String sql) throws SQLException {
        return Long.parseLong(one(sql));
    }

    /** The database password as worker processes take it: {@code -} for none. */
    String passwordArg() {
        return db.password() == null || db.password().isEmpty() ? "-" : db.password();
    }

    @Override
    public void close() {
        db.close();
        valkey.close();
    }
}
