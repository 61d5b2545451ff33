package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ValkeyClusterIT {

    static ValkeyCluster cluster;

    @BeforeAll
    static void start() {
        cluster = ValkeyServers.cluster();
    }

    @AfterAll
    static void close() {
        cluster.close();
    }

    @Test
    void cluster_started_isHealthyWithThreePrimariesAndThreeReplicas() {
        assertThat(cluster.nodes()).hasSize(6);
        assertThat(cluster.primaries()).hasSize(3);
        assertThat(cluster.replicas()).hasSize(3);
        assertThat(cluster.seedAddresses()).hasSize(6).allMatch(address -> address.startsWith("127.0.0.1:"));
        for (ValkeyServer node : cluster.nodes()) {
            assertThat((String) node.command("CLUSTER", "INFO")).contains("cluster_state:ok");
        }
        for (ValkeyServer primary : cluster.primaries()) {
            assertThat(cluster.replicaOf(primary).info("replication"))
                    .contains("master_port:" + primary.port())
                    .contains("master_link_status:up");
        }
    }

    @Test
    void slotOf_matchesClusterKeyslot() {
        ValkeyServer node = cluster.nodes().get(0);
        for (String key : List.of("{a}:x", "job:settle", "{job:settle}:lease", "{}x", "a{}{b}", "{{x}}", "héllo", "")) {
            assertThat((long) ValkeyCluster.slotOf(key)).as(key).isEqualTo(node.command("CLUSTER", "KEYSLOT", key));
        }
    }

    @Test
    void primaryForSlot_setOnThatNode_succeeds() {
        String key = "{route}:k";
        ValkeyServer primary = cluster.primaryForSlot(ValkeyCluster.slotOf(key));
        assertThat(primary.command("SET", key, "v")).isEqualTo("OK");
        assertThat(cluster.primaryForKey(key)).isSameAs(primary);
    }

    @Test
    void awaitFailover_primaryOfSlotKilled_replicaTakesOverAndAcceptsWrites() {
        String key = "{failover}:k";
        int slot = ValkeyCluster.slotOf(key);
        ValkeyServer primary = cluster.primaryForSlot(slot);
        ValkeyServer replica = cluster.replicaOf(primary);

        primary.kill();
        ValkeyServer promoted = cluster.awaitFailover(primary, Timing.scaled(Duration.ofSeconds(20)));

        assertThat(promoted).isSameAs(replica);
        assertThat(cluster.primaryForSlot(slot)).isSameAs(promoted);
        assertThat(promoted.command("SET", key, "after-failover")).isEqualTo("OK");
        assertThat(promoted.command("GET", key)).isEqualTo("after-failover");

        primary.restart();
        cluster.awaitStable(Timing.scaled(Duration.ofSeconds(20)));
        assertThat(primary.info("replication")).contains("role:slave").contains("master_port:" + promoted.port());
    }
}
