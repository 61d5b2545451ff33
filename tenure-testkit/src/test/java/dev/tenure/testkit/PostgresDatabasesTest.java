package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PostgresDatabasesTest {

    @Test
    void databaseName_oddLabel_isSanitizedAndRandomized() {
        String name = PostgresDatabases.databaseName("My-Store$IT");
        assertThat(name).matches("tenure_my_store_it_[a-z0-9]{6}");
        assertThat(PostgresDatabases.databaseName("My-Store$IT")).isNotEqualTo(name);
    }

    @Test
    void databaseName_longLabel_fitsPostgresLimit() {
        assertThat(PostgresDatabases.databaseName("x".repeat(200))).hasSize(63);
        assertThat(PostgresDatabases.databaseName("")).startsWith("tenure_anonymous_");
    }

    @Test
    void fromUrl_withParameters_swapsOnlyTheDatabase() {
        PostgresServer server = PostgresServer.fromUrl(
                PostgresSource.ENVIRONMENT, "jdbc:postgresql://db.example:6543/app?sslmode=disable", "u", "p");
        assertThat(server.adminDatabase()).isEqualTo("app");
        assertThat(server.jdbcUrl("tenure_x")).isEqualTo("jdbc:postgresql://db.example:6543/tenure_x?sslmode=disable");
    }

    @Test
    void fromUrl_notPostgres_throws() {
        assertThatThrownBy(() -> PostgresServer.fromUrl(PostgresSource.ENVIRONMENT, "jdbc:mysql://x/y", null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
