package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import dev.tenure.DatabaseConfig;
import dev.tenure.StaleOwnerException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Configuration validation and the settings that reach Hikari and pgjdbc; no database needed. */
class ConfigurationTest {

    @Test
    void poolConfig_defaults_reachHikariAndTheDriver() {
        HikariConfig h = TenureDataSources.hikariConfig(
                PoolConfig.builder("jdbc:postgresql://db:5432/app").user("u").build());
        assertThat(h.getMaximumPoolSize()).isEqualTo(6);
        assertThat(h.getMinimumIdle()).isEqualTo(6);
        assertThat(h.getConnectionTimeout()).isEqualTo(1500);
        assertThat(h.getValidationTimeout()).isEqualTo(750);
        assertThat(h.getInitializationFailTimeout()).isZero();
        assertThat(h.getDataSourceProperties())
                .containsEntry("options", "-c statement_timeout=3000")
                .containsEntry("connectTimeout", "2")
                .containsEntry("socketTimeout", "5")
                .containsEntry("tcpKeepAlive", "true")
                .containsEntry("ApplicationName", "tenure");
    }

    @Test
    void poolConfig_rejectsEachMistakeWithOneMessage() {
        assertThatThrownBy(() -> PoolConfig.builder("jdbc:mysql://x/y").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Postgres URL");
        assertThatThrownBy(() -> PoolConfig.builder("jdbc:postgresql://x/y")
                        .maxPoolSize(1)
                        .build())
                .hasMessageContaining("maxPoolSize must be between 2 and 64 (got 1)");
        assertThatThrownBy(() -> PoolConfig.builder("jdbc:postgresql://x/y")
                        .connectionTimeout(Duration.ofMillis(100))
                        .build())
                .hasMessageContaining("connectionTimeout must be at least 250 ms");
        assertThatThrownBy(() -> PoolConfig.builder("jdbc:postgresql://x/y")
                        .statementTimeout(Duration.ofMillis(10))
                        .build())
                .hasMessageContaining("statementTimeout must be at least 100 ms");
    }

    @Test
    void poolConfig_toString_masksThePassword() {
        PoolConfig withPassword = PoolConfig.builder("jdbc:postgresql://db:5432/app")
                .user("u")
                .password("s3cret-pw")
                .build();
        assertThat(withPassword.toString())
                .doesNotContain("s3cret-pw")
                .contains("password=****", "user=u", "jdbc:postgresql://db:5432/app", "maxPoolSize=6");
        assertThat(PoolConfig.builder("jdbc:postgresql://db:5432/app").build().toString())
                .contains("password=null");
    }

    @Test
    void schemaNames_plainLowerCaseIdentifiersOnly() {
        assertThat(TenureSchema.checkName("tenure")).isEqualTo("tenure");
        assertThat(TenureSchema.checkName("_jobs2")).isEqualTo("_jobs2");
        for (String bad : new String[] {"", "Jobs", "2jobs", "a-b", "a\"b", "x".repeat(64)}) {
            assertThatThrownBy(() -> TenureSchema.checkName(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("[a-z_][a-z0-9_]{0,62}");
        }
        assertThatThrownBy(() -> new JdbcBackend() // never connected: the name is checked first
                        .open(
                                new PGSimpleDataSource(),
                                "Bad",
                                false,
                                null,
                                DatabaseConfig.builder().build()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ledgerArguments_checkedBeforeAnyDatabaseCall() {
        DatabaseConfig config = DatabaseConfig.builder().listen(false).build();
        Jdbc jdbc =
                new Jdbc(new PGSimpleDataSource(), config.queryTimeout()); // never connected: validation comes first
        Sql sql = new Sql("\"tenure\"");
        LeaseRows rows = new LeaseRows(jdbc, sql, "tenure", config.claimLockTimeout(), config.renewLockTimeout(), null);
        JdbcLeaseStore leases = new JdbcLeaseStore(rows, config, null);
        JdbcRunLedger runs = new JdbcRunLedger(
                rows,
                new RunRows(jdbc, sql, rows, config.claimStatementsInFlight(), config.maxClaimsPerStatement()),
                new FenceChecks(jdbc, sql, rows),
                config,
                "never read");
        assertThatThrownBy(() -> leases.claim("bad key", "o", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whitespace");
        assertThatThrownBy(() -> leases.claim("k", "", Duration.ofSeconds(1)))
                .hasMessageContaining("owner must have 1 to 200");
        assertThatThrownBy(() -> leases.claim("k", "o", Duration.ofMillis(5)))
                .hasMessageContaining("ttl must be at least 10 ms");
        assertThatThrownBy(() -> leases.renewEpoch("k", 0, "o", Duration.ofSeconds(1)))
                .hasMessageContaining("epoch must be >= 1");
        assertThatThrownBy(() -> runs.finishAndRelease("k", 1, "o", UUID.randomUUID(), RunStatus.ABANDONED, null))
                .hasMessageContaining("COMPLETED or FAILED");
        assertThatThrownBy(() -> runs.start("k", "f".repeat(201), 1, "o")).hasMessageContaining("fireKey");
    }

    @Test
    void databaseConfig_rejectsNonsenseTimeouts() {
        DatabaseConfig.Builder b = DatabaseConfig.builder();
        assertThatThrownBy(() -> b.claimLockTimeout(Duration.ZERO))
                .hasMessageContaining("claimLockTimeout must be at least 1 ms");
        assertThatThrownBy(() -> b.renewLockTimeout(Duration.ofNanos(5))).hasMessageContaining("renewLockTimeout");
        assertThatThrownBy(() -> b.queryTimeout(Duration.ofSeconds(-1)))
                .hasMessageContaining("queryTimeout must not be negative");
        assertThatThrownBy(() -> b.claimStatementsInFlight(0))
                .hasMessageContaining("claimStatementsInFlight must be between 1 and 64 (got 0)");
        assertThatThrownBy(() -> b.maxClaimsPerStatement(1001))
                .hasMessageContaining("maxClaimsPerStatement must be between 1 and 1000 (got 1001)");
        DatabaseConfig grouped =
                b.claimStatementsInFlight(3).maxClaimsPerStatement(1).build();
        assertThat(grouped.claimStatementsInFlight()).isEqualTo(3);
        assertThat(grouped.maxClaimsPerStatement()).isEqualTo(1);
        assertThat(DatabaseConfig.defaults().toString())
                .contains("claimStatementsInFlight=2", "maxClaimsPerStatement=16");
    }

    @Test
    void staleOwnerException_saysWhatHappenedAndWhatToDo() {
        StaleOwnerException superseded = new StaleOwnerException("settle", 4, "A", 5, "B", null);
        assertThat(superseded)
                .hasMessage("Stale owner of job 'settle': presented epoch 4 as A, but its epoch is now 5 "
                        + "(owner B). Roll back this transaction and stop working on the job.");
        assertThat(superseded.expired()).isFalse();
        StaleOwnerException expired = new StaleOwnerException("settle", 5, "A", 5, "A", java.time.Instant.EPOCH);
        assertThat(expired.expired()).isTrue();
        assertThat(expired.getMessage()).contains("not live by the database clock");
        StaleOwnerException twice = new StaleOwnerException("settle", 5, "A", 5, "B", java.time.Instant.EPOCH);
        assertThat(twice.expired()).isFalse();
        assertThat(twice.getMessage())
                .contains("epoch 5 now belongs to owner B")
                .contains("failover");
    }
}
