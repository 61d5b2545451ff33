package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureSchema;
import dev.tenure.metrics.MetricNames;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A completed-fire marker answers only for the ledger that wrote it. Two applications, each with its own Postgres
 * database (its own ledger), share one valkey-server with the default namespace, and both have a job {@code report}: the
 * marker that application A's run of a fire leaves in Valkey must not tell application B that B's own run of that fire
 * is done. B runs it and records it in its own database; after that, B's own marker answers for B.
 */
class MarkerOfAnotherLedgerIT {

    private static final Duration TTL = Duration.ofSeconds(5);
    private static final String JOB = "report";
    private static final String FIRE = "2026-12-07";
    private static final String LEASE_KEY = "{tenure:" + JOB + "}:lease";

    private static ValkeyServer valkey;
    private static PostgresDatabase dbA;
    private static PostgresDatabase dbB;

    @BeforeAll
    static void start() {
        valkey = ValkeyServers.standalone();
        dbA = PostgresDatabases.forClass(MarkerOfAnotherLedgerIT.class);
        dbB = PostgresDatabases.forClass(MarkerOfAnotherLedgerIT.class);
        TenureSchema.migrate(dbA.dataSource());
        TenureSchema.migrate(dbB.dataSource());
    }

    @AfterAll
    static void stop() {
        if (dbB != null) {
            dbB.close();
        }
        if (dbA != null) {
            dbA.close();
        }
        if (valkey != null) {
            valkey.close();
        }
    }

    private static Tenure node(DataSource ds, SimpleMeterRegistry registry) {
        return Tenure.builder()
                .dataSource(ds)
                .migrateSchema(false)
                .leaseDefaults(LeaseOptions.ofTtl(TTL))
                .valkey(ValkeyConfig.standalone(valkey.address())
                        .requestTimeout(Timing.scaled(Duration.ofSeconds(2)))
                        .build())
                .mode(JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK)
                .meterRegistry(registry)
                .build();
    }

    @Test
    void markerOfAnotherLedger_sameJobAndFire_isNotThisLedgersMarker_theFireRunsAndItsOwnMarkerAnswers()
            throws SQLException {
        SimpleMeterRegistry registryB = new SimpleMeterRegistry();
        try (Tenure a = node(dbA.dataSource(), new SimpleMeterRegistry());
                Tenure b = node(dbB.dataSource(), registryB)) {
            assertThat(a.coordinator()
                            .run(JOB, FIRE, RunPolicy.skipFire(), ctx -> null)
                            .status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);
            Object markerOfA = valkey.command("GET", LEASE_KEY);
            assertThat(markerOfA).asString().as("A's marker").startsWith("d:").endsWith(FIRE);

            RunOutcome<Object> ownRun = b.coordinator().run(JOB, FIRE, RunPolicy.skipFire(), ctx -> "B's report");

            assertThat(ownRun.status()).as("B's own run of the fire").isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(completedRuns(dbB.dataSource())).as("B's ledger").containsExactly(FIRE);
            assertThat(completedRuns(dbA.dataSource())).as("A's ledger").containsExactly(FIRE);
            assertThat(markerOfA).as("A's marker names A's ledger").isEqualTo(marker(dbA.dataSource()));
            assertThat(valkey.command("GET", LEASE_KEY))
                    .as("B's marker replaced A's")
                    .isEqualTo(marker(dbB.dataSource()));

            RunOutcome<Object> again = b.coordinator().run(JOB, FIRE, RunPolicy.skipFire(), ctx -> "ran twice");
            assertThat(again.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat(doneAnswers(registryB))
                    .as("B's second run answered by B's marker (tenure.lease.acquire{result=done})")
                    .isEqualTo(1.0);
            assertThat(completedRuns(dbB.dataSource())).as("B's ledger").containsExactly(FIRE);
        }
    }

    /** The marker a completed run of {@link #FIRE} of the ledger in {@code ds} leaves in Valkey. */
    private static String marker(DataSource ds) throws SQLException {
        return "d:" + strings(ds, "SELECT id::text FROM tenure.tenure_ledger").get(0) + "/" + FIRE;
    }

    private static List<String> completedRuns(DataSource ds) throws SQLException {
        return strings(
                ds, "SELECT fire_key FROM tenure.job_runs WHERE job_key = '" + JOB + "' AND status = 'COMPLETED'");
    }

    private static List<String> strings(DataSource ds, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
                PreparedStatement s = c.prepareStatement(sql);
                ResultSet r = s.executeQuery()) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    private static double doneAnswers(SimpleMeterRegistry registry) {
        var t = registry.find(MetricNames.ACQUIRE).tag("result", "done").timer();
        return t == null ? 0 : t.count();
    }
}
