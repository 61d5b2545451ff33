package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.metrics.MetricNames;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The fallback meters of a Tenure with Valkey: {@code tenure.fallback.active} is 0 while runs go through Valkey and 1
 * once Valkey is gone and they use the database alone; {@code tenure.fallback.started} counts the switch. Real
 * valkey-server (killed) and Postgres.
 */
class FallbackMetersIT {

    @Test
    void valkeyKilled_fallbackActiveTurnsOne_andTheStartIsCounted() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (PostgresDatabase db = PostgresDatabases.forClass(FallbackMetersIT.class);
                ValkeyServer valkey = ValkeyServers.standalone();
                Tenure tenure = Tenure.builder()
                        .dataSource(db.dataSource())
                        .meterRegistry(registry)
                        .valkey(ValkeyConfig.standalone(valkey.address())
                                .requestTimeout(Timing.scaled(Duration.ofMillis(300)))
                                .build())
                        .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(5)))
                        .fallbackBreaker(1, Timing.scaled(Duration.ofSeconds(60)))
                        .build()) {
            RunOutcome<Object> before =
                    tenure.coordinator().run("fallback-meters", "fire-1", RunPolicy.skipFire(), c -> null);
            assertThat(before.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(before.viaFallback()).isFalse();
            assertThat(active(registry)).isEqualTo(0);
            assertThat(started(registry)).isEqualTo(0);

            valkey.kill();
            RunOutcome<Object> after =
                    tenure.coordinator().run("fallback-meters", "fire-2", RunPolicy.skipFire(), c -> null);

            assertThat(after.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(after.viaFallback()).isTrue();
            assertThat(active(registry)).isEqualTo(1);
            assertThat(started(registry)).isEqualTo(1);
            assertThat(registry.get(MetricNames.FALLBACK_ACTIVE).gauge().getId().getTag("mode"))
                    .isEqualTo("valkey_with_database_fallback");
        }
    }

    private static double active(SimpleMeterRegistry registry) {
        return registry.get(MetricNames.FALLBACK_ACTIVE).gauge().value();
    }

    private static double started(SimpleMeterRegistry registry) {
        return registry.get(MetricNames.FALLBACK_STARTED).functionCounter().count();
    }
}
