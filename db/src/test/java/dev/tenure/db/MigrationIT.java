package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.TenureException;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Acceptance 5: Tenure's migrations apply to an empty database, are idempotent, run concurrently from several
 * instances, never depend on search_path, and coexist with a host application's own Flyway history in one schema.
 */
class MigrationIT {

    private static List<String> query(PostgresDatabase db, String sql) {
        try (var c = db.dataSource().getConnection();
                var s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Flyway host(DataSource ds, String schema, boolean baselineOnMigrate) {
        return Flyway.configure()
                .dataSource(ds)
                .schemas(schema)
                .defaultSchema(schema)
                .locations("classpath:host/migration")
                .baselineOnMigrate(baselineOnMigrate)
                .load();
    }

    @Test
    void emptyDatabase_appliesOnce_thenIdempotent() {
        try (PostgresDatabase db = PostgresDatabases.forClass(MigrationIT.class)) {
            TenureSchema.Migration first = TenureSchema.migrate(db.dataSource());
            assertThat(first.applied()).isEqualTo(8);
            assertThat(first.version()).isEqualTo("8");
            assertThat(first.schema()).isEqualTo("tenure");
            TenureSchema.Migration second = TenureSchema.migrate(db.dataSource());
            assertThat(second.applied()).isZero();
            assertThat(second.version()).isEqualTo("8");

            assertThat(
                            query(
                                    db,
                                    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'tenure' ORDER BY 1"))
                    .containsExactly(
                            "audit_log",
                            "job_catch_up",
                            "job_execution",
                            "job_run",
                            "job_runs",
                            "job_schedule",
                            "job_schedule_span",
                            "job_schedule_version",
                            "release_listener",
                            "tenure_ledger",
                            "tenure_schema_history");
            assertThat(query(db, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"))
                    .containsExactly("0");
            assertThat(query(db, "SELECT indexname FROM pg_indexes WHERE schemaname = 'tenure' ORDER BY 1"))
                    .contains(
                            "job_execution_pk",
                            "job_run_fire_uq",
                            "job_run_pk",
                            "job_run_running_idx",
                            "job_run_missed_idx",
                            "release_listener_pk");
        }
    }

    @Test
    void customSchema_andASearchPathThatPointsElsewhere_ledgerStillWorks() {
        try (PostgresDatabase db = PostgresDatabases.forClass(MigrationIT.class)) {
            PGSimpleDataSource elsewhere = new PGSimpleDataSource();
            elsewhere.setUrl(db.jdbcUrl());
            elsewhere.setUser(db.username());
            if (db.password() != null) {
                elsewhere.setPassword(db.password());
            }
            elsewhere.setOptions("-c search_path=nowhere");
            assertThat(TenureSchema.migrate(elsewhere, "jobs").applied()).isEqualTo(8);
            try (JdbcBackend.Siblings stores = JdbcBackend.siblings(elsewhere, "jobs", null, Fixture.NO_LISTEN)) {
                ClaimResult.Claimed c = (ClaimResult.Claimed) stores.leases().claim("k", "o", Duration.ofSeconds(5));
                assertThat(stores.runs().start("k", "f", c.epoch(), "o")).isInstanceOf(RunStart.Started.class);
            }
            assertThat(query(db, "SELECT count(*) FROM jobs.job_runs")).containsExactly("1");
            assertThat(query(db, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'tenure'"))
                    .containsExactly("0");
        }
    }

    @Test
    void concurrentStarts_oneAppliesTheOthersFindItDone() throws Exception {
        try (PostgresDatabase db = PostgresDatabases.forClass(MigrationIT.class)) {
            List<CompletableFuture<TenureSchema.Migration>> starts = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                starts.add(CompletableFuture.supplyAsync(() -> TenureSchema.migrate(db.dataSource())));
            }
            int applied = 0;
            for (CompletableFuture<TenureSchema.Migration> f : starts) {
                applied += f.get(Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS)
                        .applied();
            }
            assertThat(applied).isEqualTo(8);
            assertThat(query(db, "SELECT count(*) FROM tenure.tenure_schema_history WHERE success AND type = 'SQL'"))
                    .containsExactly("8");
        }
    }

    @Test
    void hostFlywayFirst_sameSchema_bothHistoriesCoexist() {
        try (PostgresDatabase db = PostgresDatabases.forClass(MigrationIT.class)) {
            DataSource ds = db.dataSource();
            assertThat(host(ds, "app", false).migrate().migrationsExecuted).isEqualTo(2);
            assertThat(TenureSchema.migrate(ds, "app").applied()).isEqualTo(8);
            assertThat(TenureSchema.migrate(ds, "app").applied()).isZero();
            assertThat(host(ds, "app", false).migrate().migrationsExecuted).isZero();
            host(ds, "app", false).validate();

            assertThat(query(
                            db,
                            "SELECT version FROM app.flyway_schema_history WHERE type = 'SQL' ORDER BY installed_rank"))
                    .containsExactly("1", "2");
            assertThat(
                            query(
                                    db,
                                    "SELECT coalesce(version, '-') || ' ' || type FROM app.tenure_schema_history ORDER BY installed_rank"))
                    .containsExactly(
                            "0 BASELINE", "1 SQL", "2 SQL", "3 SQL", "4 SQL", "5 SQL", "6 SQL", "7 SQL", "8 SQL");
            assertThat(query(
                            db,
                            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'app' ORDER BY 1"))
                    .containsExactly(
                            "audit_log",
                            "flyway_schema_history",
                            "job_catch_up",
                            "job_execution",
                            "job_run",
                            "job_runs",
                            "job_schedule",
                            "job_schedule_span",
                            "job_schedule_version",
                            "orders",
                            "release_listener",
                            "tenure_ledger",
                            "tenure_schema_history");
        }
    }

    @Test
    void tenureFirst_sameSchema_hostNeedsBaselineOnMigrate_asFlywayRequiresForAnyNonEmptySchema() {
        try (PostgresDatabase db = PostgresDatabases.forClass(MigrationIT.class)) {
            DataSource ds = db.dataSource();
            assertThat(TenureSchema.migrate(ds, "app").applied()).isEqualTo(8);
            assertThatThrownBy(() -> host(ds, "app", false).migrate())
                    .isInstanceOf(FlywayException.class)
                    .hasMessageContaining("non-empty schema");
            // with baselineOnMigrate (and its default baseline version 1) the host's V1 would be skipped: baseline at 0
            Flyway hostAtZero = Flyway.configure()
                    .dataSource(ds)
                    .schemas("app")
                    .defaultSchema("app")
                    .locations("classpath:host/migration")
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    .load();
            assertThat(hostAtZero.migrate().migrationsExecuted).isEqualTo(2);
            assertThat(TenureSchema.migrate(ds, "app").applied()).isZero();
        }
    }

    @Test
    void badSchemaName_isRejectedWithTheRule() {
        assertThatThrownBy(() -> TenureSchema.migrate(new PGSimpleDataSource(), "Jobs; DROP"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[a-z_][a-z0-9_]{0,62}");
    }

    @Test
    void unreachableDatabase_typedFailure() {
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setUrl("jdbc:postgresql://127.0.0.1:1/none");
        nowhere.setConnectTimeout(1);
        assertThatThrownBy(() -> TenureSchema.migrate(nowhere))
                .isInstanceOf(TenureException.class)
                .hasMessageContaining("Migrating Tenure's schema 'tenure' failed");
    }
}
