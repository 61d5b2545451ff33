package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.Lease;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.Leases;
import dev.tenure.ValkeyConfig;
import dev.tenure.spi.AcquireResult;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyCluster;
import dev.tenure.testkit.ValkeyReplicationGroup;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Optional WAIT after a grant: a grant no replica acknowledged is not treated as held. */
class ReplicaAcksIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    @Test
    void replicaAcks_replicaStalled_acquireFailsClosedAndLeavesNoKey() {
        try (ValkeyReplicationGroup group = ValkeyServers.primaryWithReplica();
                ValkeyLeaseStore store = storeWaitingFor(group, Duration.ofMillis(200));
                Leases leases = Leases.of(store)) {
            Lease first = leases.tryAcquire("acked").orElseThrow();
            assertThat(group.replica().command("GET", store.leaseKeyOf("acked")))
                    .isEqualTo(first.owner());
            first.release();

            group.replica().pause();
            try {
                assertThatThrownBy(() -> leases.tryAcquire("unacked"))
                        .isInstanceOf(LeaseStoreUnavailableException.class)
                        .hasStackTraceContaining("only 0 of 1 replicas acknowledged");
                await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                        .until(() -> group.primary()
                                .command("EXISTS", store.leaseKeyOf("unacked"))
                                .equals(0L));
            } finally {
                group.replica().resume();
            }
            await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .ignoreExceptions()
                    .until(() ->
                            leases.tryAcquire("unacked").map(Lease::release).isPresent());
        }
    }

    /**
     * WAIT blocks the connection that sends it. On the shared connection it held back every other call, renewals
     * included, for up to its timeout; grants and their WAIT now have a connection of their own.
     */
    @Test
    void replicaAcks_acquireStuckInWait_renewalAndReleaseAnswerPromptly() throws Exception {
        Duration waitTimeout = Timing.scaled(Duration.ofSeconds(3));
        long prompt = Timing.scaledMillis(1_000);
        try (ValkeyReplicationGroup group = ValkeyServers.primaryWithReplica();
                ValkeyLeaseStore store = storeWaitingFor(group, waitTimeout)) {
            assertThat(store.tryAcquire("held", "owner-a", TTL, false)
                            .get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                    .isInstanceOf(AcquireResult.Acquired.class);

            group.replica().pause();
            try {
                CompletableFuture<AcquireResult> stuck = store.tryAcquire("stuck", "owner-b", TTL, false);
                await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> blockedClients(group.primary()) >= 1);

                assertThat(store.renew("held", "owner-a", TTL).get(prompt, TimeUnit.MILLISECONDS))
                        .as("renewed")
                        .isTrue();
                assertThat(store.release("held", "owner-a").get(prompt, TimeUnit.MILLISECONDS))
                        .as("released")
                        .isTrue();
                assertThatThrownBy(() ->
                                stuck.get(waitTimeout.toMillis() + Timing.scaledMillis(5_000), TimeUnit.MILLISECONDS))
                        .hasStackTraceContaining("only 0 of 1 replicas acknowledged");
            } finally {
                group.replica().resume();
            }
        }
    }

    /**
     * In a cluster the WAIT goes to the primary that took the grant: with that shard's replica stalled the grant fails
     * closed (a WAIT sent to another shard would have answered 1), while another shard still grants.
     */
    @Test
    void replicaAcks_clusterShardReplicaStalled_onlyThatShardsGrantsFailClosed() throws Exception {
        try (ValkeyCluster cluster = ValkeyServers.cluster();
                ValkeyLeaseStore store = ValkeyLeaseStore.create(ValkeyConfig.cluster(
                                cluster.seedAddresses().toArray(String[]::new))
                        // the script call's own answer must not time out on a busy machine before WAIT has answered
                        .requestTimeout(Timing.scaled(Duration.ofSeconds(3)))
                        .replicaAcks(1, Duration.ofMillis(500))
                        .build())) {
            ValkeyServer shard = cluster.primaryForKey(store.leaseKeyOf("stalled"));
            String other = IntStream.range(0, 100)
                    .mapToObj(i -> "healthy-" + i)
                    .filter(k -> !cluster.primaryForKey(store.leaseKeyOf(k))
                            .address()
                            .equals(shard.address()))
                    .findFirst()
                    .orElseThrow();
            // until the shard's replica acknowledges: a grant it did not acknowledge fails but stays in Valkey (the
            // engine would release it; here the test does), so each try releases the last one first
            await().atMost(Timing.scaled(Duration.ofSeconds(15)))
                    .ignoreExceptions()
                    .until(() -> {
                        store.release("stalled", "warm-up").get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
                        return store.tryAcquire("stalled", "warm-up", TTL, false)
                                        .get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS)
                                instanceof AcquireResult.Acquired;
                    });
            assertThat(store.release("stalled", "warm-up").get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                    .isTrue();

            ValkeyServer replica = cluster.replicaOf(shard);
            replica.pause();
            try {
                assertThatThrownBy(() -> store.tryAcquire("stalled", "owner-a", TTL, false)
                                .get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                        .hasStackTraceContaining("only 0 of 1 replicas acknowledged");
                await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                        .ignoreExceptions()
                        .until(() -> store.tryAcquire(other, "owner-b", TTL, false)
                                        .get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS)
                                instanceof AcquireResult.Acquired);
            } finally {
                replica.resume();
            }
        }
    }

    /** A store on the group's primary that WAITs for its replica; returns once a plain write is acknowledged. */
    private static ValkeyLeaseStore storeWaitingFor(ValkeyReplicationGroup group, Duration waitTimeout) {
        // right after the first sync the replica may not acknowledge yet: wait until a plain write is acked
        await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                .until(() -> group.primary()
                        .pipeline(List.of(List.of("SET", "probe", "1"), List.of("WAIT", "1", "200")))
                        .get(1)
                        .equals(1L));
        return ValkeyLeaseStore.create(ValkeyConfig.standalone(group.primary().address())
                .requestTimeout(Timing.scaled(Duration.ofSeconds(3)))
                .replicaAcks(1, waitTimeout)
                .build());
    }

    /** Clients the server holds blocked (here: in WAIT). */
    private static long blockedClients(ValkeyServer server) {
        String info = (String) server.command("INFO", "clients");
        return info.lines()
                .filter(line -> line.startsWith("blocked_clients:"))
                .mapToLong(line -> Long.parseLong(
                        line.substring("blocked_clients:".length()).trim()))
                .sum();
    }
}
