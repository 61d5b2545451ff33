package dev.tenure.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A fresh, empty database that belongs to one test class, on the JVM's shared Postgres server (see
 * {@link PostgresDatabases}). {@link #close()} drops it, forcibly disconnecting any sessions still open.
 *
 * <p>Only an embedded server can be restarted ({@link #restartServer()}); the system server on 5432 is shared with
 * everything else on the machine, so tests that must take it down need their own arrangements.
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
public final class PostgresDatabase implements AutoCloseable {

    private final PostgresServer server;
    private final String name;
    private final PGSimpleDataSource dataSource;
    private boolean closed;

    PostgresDatabase(PostgresServer server, String name) {
        this.server = server;
        this.name = name;
        this.dataSource = server.dataSource(name);
    }

    /** The database name, e.g. {@code tenure_leasestoreit_k3x9qa}. */
    public String name() {
        return name;
    }

    /** A JDBC URL for this database. */
    public String jdbcUrl() {
        return server.jdbcUrl(name);
    }

    /** The user to connect as; may be null when the URL itself carries it. */
    public String username() {
        return server.user();
    }

    /** The password; null when the server needs none. */
    public String password() {
        return server.password();
    }

    /** A non-pooling data source for this database (a new connection per {@code getConnection()}). */
    public DataSource dataSource() {
        return dataSource;
    }

    /** Which kind of server holds this database. */
    public PostgresSource source() {
        return server.source();
    }

    /**
     * Restarts the embedded Postgres server (fast shutdown, then start on the same port with the same data), cutting
     * every open connection to every database on it. New connections from {@link #dataSource()} work afterwards.
     * It is the JVM's one embedded server, so other test classes using it at the same moment see the outage too.
     *
     * @throws UnsupportedOperationException unless {@link #source()} is {@link PostgresSource#EMBEDDED}
     */
    public void restartServer() {
        PostgresServers.restart(server);
    }

    /**
     * Stops the embedded Postgres server: an outage until {@link #startServer()}. New connections are refused and open
     * ones are cut. Same caveats as {@link #restartServer()}.
     *
     * @throws UnsupportedOperationException unless {@link #source()} is {@link PostgresSource#EMBEDDED}
     */
    public void stopServer() {
        PostgresServers.stop(server);
    }

    /** Starts the embedded server stopped by {@link #stopServer()} again, on the same port with the same data. */
    public void startServer() {
        PostgresServers.start(server);
    }

    /** Drops the database ({@code DROP DATABASE ... WITH (FORCE)}). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (server.source() == PostgresSource.EMBEDDED) {
            PostgresServers.start(server); // a test that stopped it and failed before starting it again
        }
        try (Connection connection = server.admin();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "could not drop test database " + name + " on " + server + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "PostgresDatabase[" + name + " on " + server + "]";
    }
}
