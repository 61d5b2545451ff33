package dev.tenure.it;

import dev.tenure.Lease;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.Leases;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyReplicationGroup;
import dev.tenure.testkit.ValkeyServers;
import dev.tenure.valkey.ValkeyConfig;
import dev.tenure.valkey.ValkeyLeaseStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Optional WAIT after a grant: a grant no replica acknowledged is not treated as held. */
class ReplicaAcksIT {

    @Test
    void replicaAcks_replicaStalled_acquireFailsClosedAndLeavesNoKey() {
        try (ValkeyReplicationGroup group = ValkeyServers.primaryWithReplica()) {
            ValkeyLeaseStore store = ValkeyLeaseStore.create(ValkeyConfig.standalone(group.primary().address())
                    .replicaAcks(1, Duration.ofMillis(200)).build());
            try (Leases leases = Leases.of(store)) {
                // right after the first sync the replica may not acknowledge yet: wait until a plain write is acked
                await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(() -> group.primary()
                        .pipeline(List.of(List.of("SET", "probe", "1"), List.of("WAIT", "1", "200"))).get(1).equals(1L));
                Lease first = leases.tryAcquire("acked").orElseThrow();
                assertThat(group.replica().command("GET", store.leaseKeyOf("acked"))).isEqualTo(first.owner());
                first.release();

                group.replica().pause();
                try {
                    assertThatThrownBy(() -> leases.tryAcquire("unacked"))
                            .isInstanceOf(LeaseStoreUnavailableException.class)
                            .hasStackTraceContaining("only 0 of 1 replicas acknowledged");
                    await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                            .until(() -> group.primary().command("EXISTS", store.leaseKeyOf("unacked")).equals(0L));
                } finally {
                    group.replica().resume();
                }
                await().atMost(Timing.scaled(Duration.ofSeconds(10))).ignoreExceptions()
                        .until(() -> leases.tryAcquire("unacked").map(Lease::release).isPresent());
            }
        }
    }
}
