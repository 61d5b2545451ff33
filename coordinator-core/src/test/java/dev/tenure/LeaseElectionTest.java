package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The election's own rules, on the in-memory Tenure (one process). Its behaviour between processes and on real servers
 * is the test kit's {@code LeaderElectionContract}, run by the database and the Valkey configurations.
 */
class LeaseElectionTest {

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final Tenure tenure = Tenure.builder()
            .inMemory()
            .leaseDefaults(LeaseOptions.ofTtl(Duration.ofMillis(300))
                    .withRenewal(false)
                    .withInterruptOnLoss(true))
            .build();

    @AfterEach
    void close() {
        tenure.close();
    }

    private LeaderElection election(String name, String label) {
        return tenure.leaderElection(name, tenure.databaseLeases().defaults(), label, new LeaderElection.Listener() {
            @Override
            public void elected(long epoch) {
                events.add("elected " + epoch);
            }

            @Override
            public void revoked(String reason) {
                events.add("revoked " + reason);
            }
        });
    }

    @Test
    void badNameOrLabel_refusedNamingTheRule() {
        assertThatThrownBy(() -> election("bad{role}", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'{'");
        assertThatThrownBy(() -> election("role", " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("label must have 1 to 100 characters");
        assertThatThrownBy(() -> election("role", "x".repeat(101))).hasMessageContaining("label");
    }

    @Test
    void participantIds_carryTheLabel_uniquePerInstance() {
        LeaderElection a = election("ids", "node-a");
        LeaderElection b = election("ids", "node-a");
        assertThat(a.owner()).startsWith("node-a#").isNotEqualTo(b.owner());
        // without a label, the node's name (<host>/<pid> by default) and a short random id
        assertThat(election("ids", null).owner())
                .matches(".+/\\d+#[0-9a-f]{8}")
                .isNotEqualTo(election("ids", null).owner());
    }

    @Test
    void renewalAndInterruptSettingsOfTheDefaults_areOverridden_soTheTermOutlivesItsTtl() {
        LeaderElection e = election("renewed", "solo");
        e.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(e::isLeader);
        long term = e.epoch().orElseThrow();
        LockSupportSleep.sleep(Duration.ofSeconds(1)); // over three TTLs
        assertThat(e.epoch()).hasValue(term);
        assertThat(events).containsExactly("elected " + term);
    }

    @Test
    void fence_onlyWithAValidTerm() throws Exception {
        LeaderElection e = election("fenced", "solo");
        assertThatThrownBy(() -> e.fence(null))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("does not lead 'fenced'");
        e.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(e::isLeader);
        e.fence(null); // the in-memory ledger ignores the connection
        e.stop();
        assertThatThrownBy(() -> e.fence(null)).isInstanceOf(LeaseLostException.class);
        assertThat(events).last().isEqualTo("revoked stopped");
    }

    @Test
    void stop_isFinal_andIdempotent() {
        LeaderElection e = election("final", null);
        e.stop();
        e.stop();
        assertThatThrownBy(e::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot start again");
        assertThat(e.isLeader()).isFalse();
    }

    @Test
    void twoElectionsOfOneTenure_handOverOnStop() {
        LeaderElection a = election("local", "a");
        LeaderElection b = election("local", "b");
        a.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(a::isLeader);
        b.start();
        long first = a.epoch().orElseThrow();
        a.stop();
        await().atMost(Timing.scaled(Duration.ofSeconds(2))).until(b::isLeader);
        assertThat(b.epoch().orElseThrow()).isGreaterThan(first);
        assertThat(b.currentLeader())
                .get()
                .extracting(Holder::epoch)
                .isEqualTo(b.epoch().orElseThrow());
    }

    /** Sleeps without being cut short by interrupts of other tests' threads. */
    private static final class LockSupportSleep {
        static void sleep(Duration d) {
            long until = System.nanoTime() + d.toNanos();
            while (System.nanoTime() < until) {
                java.util.concurrent.locks.LockSupport.parkNanos(until - System.nanoTime());
            }
        }
    }
}
