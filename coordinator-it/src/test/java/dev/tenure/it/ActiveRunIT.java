package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.integration.ClaimedRun;
import dev.tenure.integration.RunClaim;
import dev.tenure.metrics.MetricNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

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
        try (Tenure tenure = Tenure.builder()
                .dataSource(servers.db.dataSource())
                .migrateSchema(false)
                .valkey(ValkeyConfig.standalone(servers.valkey.address()).build())
                .mode(JobCoordinator.Mode.VALKEY)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(5)))
                .meterRegistry(registry)
                .build()) {
            JobCoordinator coordinator = tenure.coordinator();
            AtomicInteger cancellations = new AtomicInteger();
            for (int i = 0; i < 5; i++) {
                ClaimedRun run =
                        ((RunClaim.Claimed) coordinator.begin("clean", "fire-" + i, RunPolicy.skipFire())).run();
                run.onCancelled(cancellations::incrementAndGet);
                RunOutcome<String> o = run.finish("ok", i % 2 == 0 ? null : new IllegalStateException("work failed"));
                assertThat(o.status()).isEqualTo(i % 2 == 0 ? RunOutcome.Status.EXECUTED : RunOutcome.Status.FAILED);
                assertThat(run.lease().state()).isEqualTo(LeaseState.RELEASED);
            }
            assertThat(cancellations).hasValue(0);
            assertThat(registry.counter(MetricNames.LOST).count()).isZero();
            assertThat(coordinator.begin("clean", "fire-next", RunPolicy.skipFire()))
                    .isInstanceOf(RunClaim.Claimed.class);
        }
    }
}
