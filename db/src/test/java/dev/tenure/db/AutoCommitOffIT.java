package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaderElection;
import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.ReleaseResult;
import dev.tenure.Tenure;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, seam c: a pool that hands out {@code autoCommit=false} connections (common with Spring or Hibernate
 * settings) would roll Tenure's claims and renewals back on close while Tenure reports success, and leases would fail
 * open. Tenure's own statements commit whatever the pool's default is.
 */
class AutoCommitOffIT {

    private static Fixture fx;
    private static HikariDataSource noAutoCommit;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(AutoCommitOffIT.class);
        HikariConfig cfg = TenureDataSources.hikariConfig(
                Fixture.poolConfig(fx.db).applicationName("no-autocommit").build());
        cfg.setAutoCommit(false);
        noAutoCommit = new HikariDataSource(cfg);
    }

    @AfterAll
    static void stop() {
        noAutoCommit.close();
        fx.close();
    }

    @Test
    void leasesOnAPoolWithoutAutoCommit_claimRenewAndReleaseAreCommitted() throws Exception {
        String key = "ac-" + UUID.randomUUID();
        try (Leases off = Leases.of(Fixture.store(noAutoCommit));
                Leases other = Leases.of(Fixture.store(fx.pool))) {
            Lease lease = off.tryAcquire(key, LeaseOptions.ofTtl(Duration.ofMillis(900)))
                    .orElseThrow();
            assertThat(fx.leases.holder(key))
                    .as("the claim is committed")
                    .get()
                    .extracting(JobHolder::owner)
                    .isEqualTo(lease.owner());
            assertThat(other.tryAcquire(key))
                    .as("another process cannot take it")
                    .isEmpty();
            Thread.sleep(2000); // over two TTLs: only committed renewals keep it
            assertThat(fx.leases.holder(key))
                    .as("the renewals are committed")
                    .get()
                    .extracting(JobHolder::owner)
                    .isEqualTo(lease.owner());
            assertThat(other.tryAcquire(key)).isEmpty();
            assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
            assertThat(fx.leases.holder(key)).as("the release is committed").isEmpty();
        }
    }

    @Test
    void electionAndRunsOnAPoolWithoutAutoCommit_areCommitted() throws Exception {
        String role = "ac-role-" + UUID.randomUUID();
        List<String> events = new ArrayList<>();
        try (Tenure tenure =
                Tenure.builder().dataSource(noAutoCommit).migrateSchema(false).build()) {
            LeaderElection e = tenure.leaderElection(
                    role, LeaseOptions.ofTtl(Duration.ofSeconds(2)), null, new LeaderElection.Listener() {
                        @Override
                        public void elected(long epoch) {
                            events.add("elected");
                        }

                        @Override
                        public void revoked(String reason) {
                            events.add("revoked " + reason);
                        }
                    });
            e.start();
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(e::isLeader);
            assertThat(fx.leases.holder(role))
                    .as("the claim is committed")
                    .get()
                    .extracting(JobHolder::epoch)
                    .isEqualTo(e.epoch().orElseThrow());
            Thread.sleep(2000); // a TTL: only committed renewals keep it
            assertThat(fx.leases.holder(role))
                    .as("the renewals are committed")
                    .get()
                    .extracting(JobHolder::epoch)
                    .isEqualTo(e.epoch().orElseThrow());
        }
        assertThat(fx.leases.holder(role)).as("the release is committed").isEmpty();
        JdbcBackend.Siblings stores = Fixture.open(noAutoCommit, Fixture.NO_LISTEN);
        JdbcLeaseStore leases = stores.leases();
        JdbcRunLedger runs = stores.runs();
        String key = "ac-run-" + UUID.randomUUID();
        long n = ((ClaimResult.Claimed) leases.claim(key, "A", Duration.ofSeconds(5))).epoch();
        RunStart.Started s = (RunStart.Started) runs.start(key, "fire-1", n, "A");
        assertThat(fx.runs.runOf(key, "fire-1"))
                .as("the run's start is committed")
                .isPresent();
        runs.finishAndRelease(key, n, "A", s.runId(), RunStatus.COMPLETED, null);
        assertThat(fx.runs.completedRun(key, "fire-1"))
                .as("the outcome is committed")
                .isPresent();
        assertThat(events).containsExactly("elected", "revoked stopped");
        stores.close();
    }
}
