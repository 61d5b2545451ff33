package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class PostgresDatabaseIT {

    /** Stand-ins for two test classes. */
    static final class FirstStoreIT {}

    static final class SecondStoreIT {}

    @Test
    void forClass_twoClasses_getSeparateFreshDatabases() throws SQLException {
        try (PostgresDatabase first = PostgresDatabases.forClass(FirstStoreIT.class);
                PostgresDatabase second = PostgresDatabases.forClass(SecondStoreIT.class)) {
            assertThat(first.name()).startsWith("tenure_firststoreit_").hasSize("tenure_firststoreit_".length() + 6);
            assertThat(second.name()).startsWith("tenure_secondstoreit_");
            assertThat(first.jdbcUrl()).endsWith("/" + first.name());
            assertThat(first.source()).isEqualTo(PostgresDatabases.source());

            execute(first, "CREATE TABLE lease (job text PRIMARY KEY)");
            execute(first, "INSERT INTO lease VALUES ('a')");

            assertThat(currentDatabase(first)).isEqualTo(first.name());
            assertThat(currentDatabase(second)).isEqualTo(second.name());
            assertThat(tableExists(first, "lease")).isTrue();
            assertThat(tableExists(second, "lease")).isFalse();
        }
    }

    @Test
    void close_openConnection_dropsDatabaseAnyway() throws SQLException {
        PostgresDatabase database = PostgresDatabases.forClass(PostgresDatabaseIT.class);
        String name = database.name();
        try (PostgresDatabase other = PostgresDatabases.create("observer")) {
            Connection lingering = database.dataSource().getConnection();
            assertThat(databaseExists(other, name)).isTrue();

            database.close();
            database.close();

            assertThat(databaseExists(other, name)).isFalse();
            assertThat(lingering.isValid(1)).isFalse();
        }
    }

    private static void execute(PostgresDatabase database, String sql) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static String currentDatabase(PostgresDatabase database) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT current_database()")) {
            result.next();
            return result.getString(1);
        }
    }

    private static boolean tableExists(PostgresDatabase database, String table) throws SQLException {
        return exists(database, "SELECT 1 FROM information_schema.tables WHERE table_name = ?", table);
    }

    private static boolean databaseExists(PostgresDatabase database, String name) throws SQLException {
        return exists(database, "SELECT 1 FROM pg_database WHERE datname = ?", name);
    }

    private static boolean exists(PostgresDatabase database, String sql, String parameter) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, parameter);
            try (ResultSet result = statement.executeQuery()) {
                return result.next();
            }
        }
    }
}
