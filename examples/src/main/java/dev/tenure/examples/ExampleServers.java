package dev.tenure.examples;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The servers an example or tour runs against, from the test kit: a fresh Postgres database ({@code TENURE_PG_URL},
 * else 127.0.0.1:5432 as {@code postgres}, else embedded Postgres), dropped on {@link #close()}, and, when asked for,
 * a private {@code valkey-server} on a free port ({@code TENURE_VALKEY_ADDRESS} instead, if set). In an application
 * these are its own {@link DataSource} and Valkey address. Not thread-safe; close once.
 */
public final class ExampleServers implements AutoCloseable {

    private final PostgresDatabase database;
    private final HikariDataSource pool;
    private final ValkeyServer valkey;

    private ExampleServers(Class<?> example, boolean withValkey) {
        this.database = PostgresDatabases.forClass(example);
        this.pool = TenureDataSources.hikari(database.jdbcUrl(), database.username(), database.password());
        try {
            this.valkey = withValkey ? ValkeyServers.standalone() : null;
        } catch (RuntimeException e) {
            pool.close();
            database.close();
            throw e;
        }
    }

    /** A fresh Postgres database only (no Valkey: nothing of Valkey GLIDE is loaded). */
    public static ExampleServers postgres(Class<?> example) {
        return new ExampleServers(example, false);
    }

    /** A fresh Postgres database and a Valkey server. */
    public static ExampleServers postgresAndValkey(Class<?> example) {
        return new ExampleServers(example, true);
    }

    /** A small connection pool on the database. */
    public DataSource dataSource() {
        return pool;
    }

    /** The database itself (JDBC URL and credentials, for worker processes). */
    public PostgresDatabase database() {
        return database;
    }

    /** The database as worker-process arguments (see {@link TourNodes#pool}): JDBC URL, user, password ({@code -} for none). */
    public List<String> databaseArgs() {
        String password = database.password();
        return List.of(
                database.jdbcUrl(), database.username(), password == null || password.isEmpty() ? "-" : password);
    }

    /**
     * The Valkey server's {@code host:port}.
     *
     * @throws IllegalStateException if these servers were started without Valkey
     */
    public String valkeyAddress() {
        if (valkey == null) {
            throw new IllegalStateException("started without Valkey: use ExampleServers.postgresAndValkey");
        }
        return valkey.address();
    }

    /** The Valkey server, for tours that stop and restart it; null without Valkey. */
    public ValkeyServer valkey() {
        return valkey;
    }

    /** Runs DDL such as the example's business tables, one statement each. */
    public void sql(String... statements) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    /** Prints each row of {@code query}, its columns separated by two spaces. */
    public void print(String query) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(query)) {
            int columns = r.getMetaData().getColumnCount();
            while (r.next()) {
                StringBuilder line = new StringBuilder(r.getString(1));
                for (int i = 2; i <= columns; i++) {
                    line.append("  ").append(r.getString(i));
                }
                System.out.println(line);
            }
        }
    }

    /** Closes the pool, drops the database, stops Valkey. */
    @Override
    public void close() {
        pool.close();
        database.close();
        if (valkey != null) {
            valkey.close();
        }
    }
}
