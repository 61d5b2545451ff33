package dev.tenure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TtlAdvisorTest {

    @Test
    void suggestedTtl_isThreeTimesHoldP99_atLeastOneSecond() {
        TtlAdvisor advisor = new TtlAdvisor(100);
        assertThat(advisor.suggestedTtl()).isEmpty();
        for (int i = 1; i <= 100; i++) {
            advisor.record(Duration.ofMillis(i * 10L));
        }
        assertThat(advisor.holdP99()).contains(Duration.ofMillis(990));
        assertThat(advisor.suggestedTtl()).contains(Duration.ofMillis(2970));
        TtlAdvisor small = new TtlAdvisor(10);
        small.record(Duration.ofMillis(5));
        assertThat(small.suggestedTtl()).contains(Duration.ofSeconds(1));
        assertThatThrownBy(() -> new TtlAdvisor(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void micrometerMetrics_publishTheNamedMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerLeaseMetrics m = new MicrometerLeaseMetrics(registry);
        m.acquire(LeaseMetrics.AcquireOutcome.ACQUIRED, 1_000_000);
        m.acquire(LeaseMetrics.AcquireOutcome.HELD, 1_000_000);
        m.held(Duration.ofMillis(500), Duration.ofSeconds(1));
        m.lost();
        assertThat(registry.get(MetricNames.ACQUIRE)
                        .tag("result", "acquired")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get(MetricNames.ACQUIRE)
                        .tag("result", "held")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get(MetricNames.TTL_HEADROOM).summary().mean()).isEqualTo(0.5);
        assertThat(registry.get(MetricNames.LOST).counter().count()).isEqualTo(1);
        assertThat(m.ttlAdvisor().holdP99()).contains(Duration.ofMillis(500));
    }
}
