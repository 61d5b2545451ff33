package dev.tenure.it;

import dev.tenure.ActiveRun;
import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.Leases;
import dev.tenure.RunClaim;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.db.JdbcLeaseStore;
import dev.tenure.db.JdbcRunLedger;
import dev.tenure.metrics.MetricNames;
import dev.tenure.metrics.MicrometerLeaseMetrics;
import dev.tenure.ValkeyConfig;
import dev.tenure.valkey.ValkeyLeaseStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claimed run finished cleanly ends with both leases RELEASED (not LOST), counts no lost lease and never runs its
 * cancellation callbacks: the ledger records the outcome and leaves the release to the lease handles.
 */
class ActiveRunIT {

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(ActiveRunIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void finish_afterCleanRuns_leasesReleasedNotLost_noCancellation() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JdbcLeaseStore store = JdbcLeaseStore.create(servers.db.dataSource());
        try (Leases database = Leases.builder(store).metrics(new MicrometerLeaseMetrics(registry)).build();
             Leases valkey = Leases.builder(ValkeyLeaseStore.create(ValkeyConfig.standalone(servers.valkey.address()).build()))
                     .metrics(new MicrometerLeaseMetrics(registry)).build()) {
            JobCoordinator coordinator = JobCoordinator.builder(database, new JdbcRunLedger(store)).valkey(valkey)
                    .mode(JobCoordinator.Mode.VALKEY).leaseOptions(LeaseOptions.ofTtl(Duration.ofSeconds(5))).build();
            AtomicInteger cancellations = new AtomicInteger();
            for (int i = 0; i < 5; i++) {
                ActiveRun run = ((RunClaim.Claimed) coordinator.begin("clean", "fire-" + i, RunPolicy.skipFire())).run();
                run.onCancelled(cancellations::incrementAndGet);
                RunOutcome<String> o = run.finish("ok", i % 2 == 0 ? null : new IllegalStateException("work failed"));
                assertThat(o.status()).isEqualTo(i % 2 == 0 ? RunOutcome.Status.EXECUTED : RunOutcome.Status.FAILED);
                assertThat(run.lease().state()).isEqualTo(LeaseState.RELEASED);
            }
            assertThat(cancellations).hasValue(0);
            assertThat(registry.counter(MetricNames.LOST).count()).isZero();
            assertThat(coordinator.begin("clean", "fire-next", RunPolicy.skipFire())).isInstanceOf(RunClaim.Claimed.class);
        }
    }
}
