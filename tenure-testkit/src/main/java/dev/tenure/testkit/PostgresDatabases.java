package dev.tenure.testkit;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * Creates a fresh database per test class, so test classes never see each other's tables or rows.
 *
 * <p>The server is found once per JVM, in this order ({@link PostgresSource}):
 * <ol>
 *   <li>{@code TENURE_PG_URL}, e.g. {@code jdbc:postgresql://db:5432/postgres}, with {@code TENURE_PG_USER} and
 *       {@code TENURE_PG_PASSWORD}; the user must be allowed to CREATE DATABASE;</li>
 *   <li>a server on 127.0.0.1:5432 that lets user {@code postgres} in without a password (2 s connect timeout);</li>
 *   <li>embedded Postgres (zonky), kept for the JVM's lifetime;</li>
 *   <li>Testcontainers {@code postgres:15-alpine}, only if Docker is available;</li>
 *   <li>otherwise an {@link IllegalStateException} that says what to install.</li>
 * </ol>
 *
 * <pre>{@code
 * static PostgresDatabase db;
 * @BeforeAll static void start() { db = PostgresDatabases.forClass(MyStoreIT.class); }
 * @AfterAll static void stop() { db.close(); }
 * }</pre>
 */
public final class PostgresDatabases {

    private static final int MAX_NAME = 63;
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    private static final SecureRandom RANDOM = new SecureRandom();

    private PostgresDatabases() {}

    /** A new database named {@code tenure_<class simple name>_<6 random chars>}. */
    public static PostgresDatabase forClass(Class<?> testClass) {
        return create(testClass.getSimpleName());
    }

    /**
     * Like {@link #forClass(Class)}, on a server of exactly this source, e.g. {@link PostgresSource#EMBEDDED} for a
     * test that needs {@link PostgresDatabase#restartServer()}.
     *
     * @throws IllegalStateException if that source is not available, saying why
     */
    public static PostgresDatabase forClass(Class<?> testClass, PostgresSource source) {
        return create(PostgresServers.of(source), testClass.getSimpleName());
    }

    /** A new database named {@code tenure_<label>_<6 random chars>}, the label lower-cased and sanitized. */
    public static PostgresDatabase create(String label) {
        return create(PostgresServers.shared(), label);
    }

    private static PostgresDatabase create(PostgresServer server, String label) {
        String name = databaseName(label);
        try (Connection connection = server.admin();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE \"" + name + "\"");
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "could not create test database " + name + " on " + server + ": " + e.getMessage()
                            + ". The user needs the CREATEDB privilege.",
                    e);
        }
        return new PostgresDatabase(server, name);
    }

    /** Which kind of server this JVM uses; finds (and maybe starts) it on first call. */
    public static PostgresSource source() {
        return PostgresServers.shared().source();
    }

    static String databaseName(String label) {
        String sanitized = label.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (sanitized.isEmpty()) {
            sanitized = "anonymous";
        }
        int room = MAX_NAME - "tenure_".length() - "_".length() - 6;
        if (sanitized.length() > room) {
            sanitized = sanitized.substring(0, room);
        }
        StringBuilder suffix = new StringBuilder(6);
        for (int i = 0; i < 6; i++) {
            suffix.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return "tenure_" + sanitized + "_" + suffix;
    }
}
