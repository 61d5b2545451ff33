package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class EmbeddedPostgresIT {

    @Test
    void restartServer_embedded_keepsDataAndCutsOpenConnections() throws SQLException {
        try (PostgresDatabase database =
                PostgresDatabases.forClass(EmbeddedPostgresIT.class, PostgresSource.EMBEDDED)) {
            assertThat(database.source()).isEqualTo(PostgresSource.EMBEDDED);
            Connection before = database.dataSource().getConnection();
            try (Statement statement = before.createStatement()) {
                statement.execute("CREATE TABLE survivor (id int)");
                statement.execute("INSERT INTO survivor VALUES (7)");
            }

            database.restartServer();

            assertThat(before.isValid(1)).isFalse();
            try (Connection after = database.dataSource().getConnection();
                    Statement statement = after.createStatement();
                    ResultSet result = statement.executeQuery("SELECT id FROM survivor")) {
                assertThat(result.next()).isTrue();
                assertThat(result.getInt(1)).isEqualTo(7);
            }
        }
    }

    @Test
    void restartServer_notEmbedded_isUnsupported() {
        try (PostgresDatabase database = PostgresDatabases.forClass(EmbeddedPostgresIT.class)) {
            if (database.source() != PostgresSource.EMBEDDED) {
                assertThatThrownBy(database::restartServer)
                        .isInstanceOf(UnsupportedOperationException.class)
                        .hasMessageContaining("EMBEDDED");
            }
        }
    }
}
