package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.spi.LeaseKeys;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BadInputTest {

    @ParameterizedTest
    @ValueSource(strings = {"", "a{b", "a}b", "a b", "tab\there", "new\nline"})
    void validate_badKey_namesKeyAndRule(String key) {
        assertThatThrownBy(() -> LeaseKeys.validate(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease key")
                .hasMessageMatching("(?s).*(empty|must not contain).*");
    }

    @Test
    void validate_oversizedKey_namesTheLimit() {
        assertThatThrownBy(() -> LeaseKeys.validate("x".repeat(201)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("201")
                .hasMessageContaining("200");
    }

    @Test
    void options_nonPositiveTtl_rejected() {
        assertThatThrownBy(() -> LeaseOptions.ofTtl(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl must be positive")
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> LeaseOptions.ofTtl(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl must be positive");
    }

    @Test
    void options_renewalNotShorterThanTtl_rejected() {
        assertThatThrownBy(() -> LeaseOptions.ofTtl(Duration.ofSeconds(3)).withRenewEvery(Duration.ofSeconds(3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renewEvery (PT3S) must be shorter than ttl (PT3S)");
    }

    @Test
    void wait_negative_rejected() {
        assertThatThrownBy(() -> LockPolicy.waitUpTo(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWait must not be negative");
        try (Leases l = Leases.of(new FaultyLeaseStore(Ticker.system()))) {
            assertThatThrownBy(() -> l.acquire("k", Duration.ofMillis(-5), l.defaults()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("wait must not be negative (got PT-0.005S)");
            assertThatThrownBy(() -> l.tryAcquire("bad key"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'bad key'");
            assertThatThrownBy(() -> l.acquireAll(List.of(), Duration.ZERO, l.defaults()))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void leasesBuilder_badTurnBounds_rejectedWithTheValue() {
        Leases.Builder b = Leases.builder(new FaultyLeaseStore(Ticker.system()));
        assertThatThrownBy(() -> b.maxTurn(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxTurn must be zero or positive (got PT-0.001S)");
        assertThatThrownBy(() -> b.maxTurn(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxTurn");
        assertThatThrownBy(() -> b.maxLocalHandOffs(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxLocalHandOffs must be >= 0 (got -1)");
        assertThatThrownBy(() -> b.callTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("callTimeout must be positive (got PT0S)");
    }

    @Test
    void valkeyConfig_badValues_rejectedWithTheValue() {
        assertThatThrownBy(() -> ValkeyConfig.standalone("localhost").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("host:port")
                .hasMessageContaining("localhost");
        assertThatThrownBy(() -> ValkeyConfig.standalone("h:99999").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1..65535");
        assertThatThrownBy(() -> ValkeyConfig.standalone().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        assertThatThrownBy(() -> ValkeyConfig.standalone("h:1").requestTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestTimeout must be positive");
        assertThatThrownBy(() -> ValkeyConfig.standalone("h:1").namespace("a{b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a{b'");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 17})
    void valkeyConfig_clientsOutOfRange_rejectedNamingTheKnobAndValue(int n) {
        assertThatThrownBy(() -> ValkeyConfig.standalone("h:1").clients(n))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("clients must be between 1 and 16 (got " + n + ")");
    }

    @Test
    void valkeyConfig_clients_defaultOneAndBoundsAccepted() {
        assertThat(ValkeyConfig.standalone("h:1").build().clients()).isEqualTo(1);
        assertThat(ValkeyConfig.standalone("h:1").clients(16).build().clients()).isEqualTo(16);
        assertThat(ValkeyConfig.cluster("h:1").clients(4).build())
                .hasToString("ValkeyConfig[cluster [h:1], namespace=tenure, requestTimeout=PT0.5S, clients=4]");
    }
}
