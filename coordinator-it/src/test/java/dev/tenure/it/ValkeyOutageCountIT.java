package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.LeaderElection;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.metrics.MetricNames;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.StderrCapture;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 35 item 8: one wrong Valkey password is one outage, however many times the breaker tries Valkey again inside
 * it. A Tenure with a wrong password for a real valkey-server (requirepass) runs a job every 50 ms for 8 retry periods
 * of its breaker (300 ms) and leads an election; then the server's password is changed to the one Tenure has. The
 * coordinator writes one WARN when the outage starts (naming the server and its answer) and one INFO when it ends (with
 * its duration); {@code tenure.fallback.started} and {@link dev.tenure.JobCoordinator#fallbacks()} count 1. The
 * election's WARN says in plain words what happened (no "unknown outcome", no "release-if-mine"), once. Real Postgres.
 */
class ValkeyOutageCountIT {

    private static final Duration RETRY = Duration.ofMillis(300);

    @Test
    void wrongPassword_severalRetryPeriods_oneOutage_oneWarn_oneInfo_countedOnce() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (PostgresDatabase db = PostgresDatabases.forClass(ValkeyOutageCountIT.class);
                ValkeyServer valkey = ValkeyServers.standalone("--requirepass", "the-right-one");
                StderrCapture log = new StderrCapture();
                Tenure tenure = Tenure.builder()
                        .dataSource(db.dataSource())
                        .meterRegistry(registry)
                        .valkey(ValkeyConfig.standalone(valkey.address())
                                .credentials("default", "a-wrong-one")
                                .requestTimeout(Timing.scaled(Duration.ofMillis(500)))
                                .connectionTimeout(Timing.scaled(Duration.ofMillis(500)))
                                .build())
                        .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                        .fallbackBreaker(1, RETRY)
                        .build()) {
            LeaderElection election = tenure.leaderElection("outage-role", new LeaderElection.Listener() {
                @Override
                public void elected(long epoch) {}

                @Override
                public void revoked(String reason) {}
            });
            election.start();
            long end = System.nanoTime() + RETRY.multipliedBy(8).toNanos();
            int i = 0;
            while (System.nanoTime() < end) {
                RunOutcome<Object> o =
                        tenure.coordinator().run("outage-job", "fire-" + i++, RunPolicy.skipFire(), c -> null);
                assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
                assertThat(o.viaFallback()).isTrue();
                Thread.sleep(50);
            }
            await("the election, led on the database alone")
                    .atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(election::isLeader);
            assertThat(tenure.coordinator().inFallback()).isTrue();
            assertThat(started(registry))
                    .as("tenure.fallback.started during the outage")
                    .isEqualTo(1);

            valkey.command("CONFIG", "SET", "requirepass", "a-wrong-one");
            await("the end of the outage")
                    .atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        tenure.coordinator()
                                .run("outage-job", "after-" + System.nanoTime(), RunPolicy.skipFire(), c -> null);
                        return !tenure.coordinator().inFallback();
                    });
            election.stop();
            List<String> lines = log.lines();
            System.out.println(i + " runs in " + RETRY.multipliedBy(8).toMillis() + " ms of a wrong password; "
                    + "the lines about Valkey:");
            lines.stream().filter(l -> l.contains("Valkey")).forEach(l -> System.out.println("  | " + l));

            String server = "Valkey " + valkey.address() + ": WRONGPASS";
            assertThat(lines)
                    .as("the coordinator's WARN lines")
                    .filteredOn(l -> l.contains("WARN dev.tenure.JobCoordinator"))
                    .singleElement()
                    .satisfies(l -> assertThat(l).contains("Valkey fallback started", server));
            assertThat(lines)
                    .as("the coordinator's INFO at the end")
                    .filteredOn(l -> l.contains("INFO dev.tenure.JobCoordinator"))
                    .singleElement()
                    .satisfies(l -> assertThat(l).containsPattern("Valkey fallback ended after \\d+ ms"));
            assertThat(lines)
                    .as("the election's WARN lines")
                    .filteredOn(l -> l.contains("WARN dev.tenure.LeaderElection"))
                    .singleElement()
                    .satisfies(l -> assertThat(l)
                            .contains("election 'outage-role'", server, "the database decides the election alone")
                            .doesNotContain("unknown outcome", "release-if-mine"));
            assertThat(started(registry))
                    .as("tenure.fallback.started after the outage")
                    .isEqualTo(1);
            assertThat(tenure.coordinator().fallbacks()).isEqualTo(1);
        }
    }

    private static double started(SimpleMeterRegistry registry) {
        return registry.get(MetricNames.FALLBACK_STARTED).functionCounter().count();
    }
}
