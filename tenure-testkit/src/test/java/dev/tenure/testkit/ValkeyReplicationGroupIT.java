package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ValkeyReplicationGroupIT {

    static ValkeyReplicationGroup group;

    @BeforeAll
    static void start() {
        group = ValkeyServers.primaryWithReplica();
    }

    @AfterAll
    static void close() {
        group.close();
    }

    @Test
    void primaryWithReplica_started_replicaIsSynced() {
        assertThat(group.replica().info("replication")).contains("master_link_status:up");
        assertThat(group.primary().info("replication"))
                .contains("port=" + group.replica().port())
                .contains("state=online");
    }

    @Test
    void write_onPrimary_isVisibleOnReplicaThenPromotedReplicaAcceptsWrites() {
        assertThat(group.primary().pipeline(List.of(List.of("SET", "k", "v"), List.of("WAIT", "1", "1000"))))
                .containsExactly("OK", 1L);
        assertThat(group.replica().command("GET", "k")).isEqualTo("v");
        assertThatThrownBy(() -> group.replica().command("SET", "k", "w"))
                .isInstanceOf(ValkeyReplyException.class)
                .extracting(e -> ((ValkeyReplyException) e).code())
                .isEqualTo("READONLY");

        ValkeyServer promoted = group.promoteReplica();

        assertThat(promoted).isSameAs(group.replica());
        assertThat(promoted.command("SET", "k", "w")).isEqualTo("OK");
        assertThat(promoted.command("GET", "k")).isEqualTo("w");

        group.replicate();
        assertThat(group.replica().command("GET", "k")).isEqualTo("v");
        group.awaitReplicaSynced(Duration.ofSeconds(1));
    }

    @Test
    void primaryWithReplica_requirepass_replicaAuthenticatesToPrimary() {
        try (ValkeyReplicationGroup secured = ValkeyServers.primaryWithReplica("--requirepass", "s3cret")) {
            assertThat(secured.primary().pipeline(List.of(List.of("SET", "k", "v"), List.of("WAIT", "1", "1000"))))
                    .containsExactly("OK", 1L);
            assertThat(secured.replica().command("GET", "k")).isEqualTo("v");
        }
    }
}
