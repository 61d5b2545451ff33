package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.memory.InMemoryRunLedger;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An election uses the fallback breaker it is given (Tenure passes its builder's), not one of its own. */
class ElectionBreakerTest {

    @Test
    void valkeyDown_theElectionTriesValkeyAsOftenAsItsBreakerAllows_thenTheDatabaseDecidesAlone() {
        // each failed Valkey attempt costs the same store calls (the acquire, and the clean-up of its unknown outcome)
        int one = valkeyCallsBeforeLeading(1);
        int three = valkeyCallsBeforeLeading(3);
        assertThat(one).isPositive();
        assertThat(three)
                .as("calls with a breaker of 3 failures against %s with 1", one)
                .isEqualTo(3 * one);
    }

    private static int valkeyCallsBeforeLeading(int failures) {
        InMemoryLeaseStore dbStore = new InMemoryLeaseStore(Ticker.system());
        FaultyLeaseStore valkeyStore = new FaultyLeaseStore(Ticker.system());
        valkeyStore.down.set(true);
        try (Leases database = Leases.of(dbStore);
                Leases valkey = Leases.of(valkeyStore)) {
            LeaseElection e = new LeaseElection(
                    "breaker-role",
                    "a",
                    database,
                    valkey,
                    new InMemoryRunLedger(dbStore),
                    LeaseOptions.ofTtl(Duration.ofSeconds(30)),
                    new CircuitBreaker(failures, Duration.ofHours(1), Ticker.system()),
                    new LeaderElection.Listener() {
                        @Override
                        public void elected(long epoch) {}

                        @Override
                        public void revoked(String reason) {}
                    });
            e.start();
            try {
                await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(e::isLeader);
                return valkeyStore.calls.get();
            } finally {
                e.stop();
            }
        }
    }
}
