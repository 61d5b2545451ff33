package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(TestkitExtension.class)
class ExtensionInjectionIT {

    static ValkeyServer firstServer;
    static PostgresDatabase firstDatabase;

    @Test
    void parameters_valkeyAndPostgres_areInjected(ValkeyServer valkey, PostgresDatabase database) throws SQLException {
        assertThat(valkey.command("PING")).isEqualTo("PONG");
        assertThat(database.name()).startsWith("tenure_extensioninjectionit_");
        try (Connection connection = database.dataSource().getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        remember(valkey, database);
    }

    @Test
    void parameters_secondTest_getsSameResourcesOfTheClass(ValkeyServer valkey, PostgresDatabase database) {
        remember(valkey, database);
    }

    private static synchronized void remember(ValkeyServer valkey, PostgresDatabase database) {
        if (firstServer == null) {
            firstServer = valkey;
            firstDatabase = database;
        } else {
            assertThat(valkey).isSameAs(firstServer);
            assertThat(database).isSameAs(firstDatabase);
        }
    }
}
