package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.DatabaseConfig;
import dev.tenure.TenureException;
import dev.tenure.spi.DatabaseBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ledger's own id (schema version 7): every run ledger on one schema reads the same one, the row of
 * {@code tenure_ledger}; another schema is another ledger with another id; a schema without the table is refused with a
 * message that says to migrate it.
 */
class LedgerIdIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(LedgerIdIT.class);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void runLedgersOnOneSchema_readItsOneRow_anotherSchemaHasAnotherId() {
        String row = fx.query("SELECT id::text FROM tenure.tenure_ledger").get(0);
        try (JdbcBackend.Siblings one = Fixture.open(fx.pool, Fixture.NO_LISTEN);
                JdbcBackend.Siblings two = Fixture.open(fx.pool, Fixture.NO_LISTEN)) {
            assertThat(one.runs().ledgerId()).isEqualTo(row);
            assertThat(two.runs().ledgerId()).isEqualTo(row);
        }

        TenureSchema.migrate(fx.pool, "other_app");
        DatabaseBackend.Stores other = new JdbcBackend()
                .open(
                        fx.pool,
                        "other_app",
                        false,
                        "node-1",
                        DatabaseConfig.builder().listen(false).build());
        try {
            assertThat(other.runLedger().ledgerId())
                    .isEqualTo(fx.query("SELECT id::text FROM other_app.tenure_ledger")
                            .get(0))
                    .isNotEqualTo(row)
                    .doesNotContain("/");
        } finally {
            other.leaseStore().close();
        }
    }

    @Test
    void schemaWithoutTheTable_isRefused_sayingToMigrate() {
        fx.execute("CREATE SCHEMA bare");
        assertThatThrownBy(() -> new JdbcBackend().open(fx.pool, "bare", false, null, Fixture.NO_LISTEN))
                .isInstanceOf(TenureException.class)
                .hasMessageContaining("older than version 7")
                .hasMessageContaining("Migrate it");
    }

    @Test
    void schemaAtVersion7_isRefused_sayingToMigrate() {
        org.flywaydb.core.Flyway.configure(TenureSchema.class.getClassLoader())
                .configuration(TenureSchema.flyway(fx.pool, "at_seven").getConfiguration())
                .target("7")
                .load()
                .migrate();
        assertThatThrownBy(() -> new JdbcBackend().open(fx.pool, "at_seven", false, null, Fixture.NO_LISTEN))
                .isInstanceOf(TenureException.class)
                .hasMessageContaining("older than version 8")
                .hasMessageContaining("Migrate it");
        TenureSchema.migrate(fx.pool, "at_seven");
        DatabaseBackend.Stores migrated = new JdbcBackend().open(fx.pool, "at_seven", false, null, Fixture.NO_LISTEN);
        migrated.leaseStore().close();
    }
}
