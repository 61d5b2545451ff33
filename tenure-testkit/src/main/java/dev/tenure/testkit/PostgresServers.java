package dev.tenure.testkit;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Finds Postgres servers, at most one of each {@link PostgresSource} per JVM. {@link #shared()} tries them in this
 * order: {@code TENURE_PG_URL}, a server on 127.0.0.1:5432, embedded Postgres, a Testcontainers container. Embedded and
 * container servers live until the JVM exits.
 */
final class PostgresServers {

    static final String URL_ENV = "TENURE_PG_URL";
    static final String USER_ENV = "TENURE_PG_USER";
    static final String PASSWORD_ENV = "TENURE_PG_PASSWORD";
    static final String LOCAL_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";

    private static final Logger LOG = LoggerFactory.getLogger(PostgresServers.class);
    private static final Map<PostgresSource, PostgresServer> BY_SOURCE = new EnumMap<>(PostgresSource.class);
    private static PostgresServer shared;
    private static EmbeddedPostgresServer embedded;

    private PostgresServers() {}

    /** The first source that works, in {@link PostgresSource} order; resolved once per JVM. */
    static synchronized PostgresServer shared() {
        if (shared == null) {
            List<String> attempts = new ArrayList<>();
            for (PostgresSource source : PostgresSource.values()) {
                try {
                    shared = of(source);
                    LOG.info("Tenure test kit uses Postgres from {}", shared);
                    return shared;
                } catch (RuntimeException e) {
                    attempts.add(e.getMessage());
                }
            }
            throw new IllegalStateException("No Postgres server for tests. Install and start one ('apt-get install "
                    + "postgresql', with trust auth for user postgres on 127.0.0.1:5432), or set " + URL_ENV + " (and "
                    + USER_ENV + ", " + PASSWORD_ENV + ") to a server where that user may CREATE DATABASE. Tried: "
                    + String.join("; ", attempts));
        }
        return shared;
    }

    /**
     * The server of exactly this source, found or started on first use.
     *
     * @throws IllegalStateException if that source is not available, saying why
     */
    static synchronized PostgresServer of(PostgresSource source) {
        PostgresServer server = BY_SOURCE.get(source);
        if (server == null) {
            server = find(source, System::getenv);
            BY_SOURCE.put(source, server);
        }
        return server;
    }

    /** Restarts an embedded server on the same port with the same data. */
    static synchronized void restart(PostgresServer server) {
        requireEmbedded(server, "restarted");
        embedded.restart();
    }

    /** Stops an embedded server until {@link #start}; connections are refused meanwhile. */
    static synchronized void stop(PostgresServer server) {
        requireEmbedded(server, "stopped");
        embedded.halt();
    }

    /** Starts a stopped embedded server again on the same port with the same data. */
    static synchronized void start(PostgresServer server) {
        requireEmbedded(server, "started");
        embedded.resume();
    }

    private static void requireEmbedded(PostgresServer server, String what) {
        if (server.source() != PostgresSource.EMBEDDED) {
            throw new UnsupportedOperationException("only the embedded Postgres can be " + what + " by the test kit; "
                    + "this database lives on " + server + ". Ask for PostgresSource.EMBEDDED.");
        }
    }

    static PostgresServer find(PostgresSource source, Function<String, String> env) {
        switch (source) {
            case ENVIRONMENT:
                String url = env.apply(URL_ENV);
                if (url == null || url.isBlank()) {
                    throw new IllegalStateException(URL_ENV + " is not set");
                }
                return PostgresServer.fromUrl(source, url, env.apply(USER_ENV), env.apply(PASSWORD_ENV));
            case LOCAL_SERVER:
                return local();
            case EMBEDDED:
                return embedded();
            default:
                return container();
        }
    }

    private static PostgresServer local() {
        PostgresServer local = PostgresServer.fromUrl(PostgresSource.LOCAL_SERVER, LOCAL_URL, "postgres", null);
        PGSimpleDataSource dataSource = local.dataSource(local.adminDatabase());
        dataSource.setConnectTimeout(2);
        dataSource.setLoginTimeout(2);
        dataSource.setSocketTimeout(5);
        try (Connection connection = dataSource.getConnection()) {
            connection.isValid(2);
            return local;
        } catch (SQLException e) {
            throw new IllegalStateException("127.0.0.1:5432 as postgres: " + e.getMessage(), e);
        }
    }

    private static PostgresServer embedded() {
        try {
            if (embedded == null) {
                embedded = EmbeddedPostgresServer.start();
            }
            return PostgresServer.fromUrl(
                    PostgresSource.EMBEDDED,
                    "jdbc:postgresql://127.0.0.1:" + embedded.port() + "/postgres",
                    "postgres",
                    null);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("embedded Postgres failed: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("resource") // stopped by the shutdown hook
    private static PostgresServer container() {
        boolean docker;
        try {
            docker = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            docker = false;
        }
        if (!docker) {
            throw new IllegalStateException("Docker is not available for Testcontainers");
        }
        PostgreSQLContainer container = new PostgreSQLContainer("postgres:15-alpine");
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "tenure-testkit-postgres-container"));
        return PostgresServer.fromUrl(
                PostgresSource.TESTCONTAINERS,
                container.getJdbcUrl(),
                container.getUsername(),
                container.getPassword());
    }
}
