package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The lease engine's knobs on {@link Tenure.Builder}: checked there, by the rules of {@link Leases.Builder}. */
class TenureBuilderKnobsTest {

    @Test
    void badEngineKnobs_refusedByTheBuilderNamingTheKnob() {
        assertThatThrownBy(() -> Tenure.builder().leaseCallTimeout(Duration.ZERO))
                .hasMessageContaining("callTimeout");
        assertThatThrownBy(() -> Tenure.builder().maxLocalHandOffs(-1)).hasMessageContaining("maxLocalHandOffs");
        assertThatThrownBy(() -> Tenure.builder().maxTurn(Duration.ofMillis(-1)))
                .hasMessageContaining("maxTurn");
        assertThatThrownBy(() -> Tenure.builder().database(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void engineKnobs_aTenureWithThemWorks() {
        try (Tenure tenure = Tenure.builder()
                .inMemory()
                .leaseCallTimeout(Duration.ofSeconds(2))
                .maxLocalHandOffs(0)
                .maxTurn(Duration.ZERO)
                .build()) {
            assertThat(tenure.leases().tryAcquire("k").map(Lease::release)).contains(ReleaseResult.RELEASED);
        }
    }
}
