package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ValkeyClusterSlotTest {

    @Test
    void crc16_checkString_matchesXmodemCheckValue() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(ClusterSlots.crc16(check, 0, check.length)).isEqualTo(0x31C3);
    }

    @Test
    void slotOf_sameHashTag_sameSlot() {
        assertThat(ValkeyCluster.slotOf("{a}:x"))
                .isEqualTo(ValkeyCluster.slotOf("{a}:y"))
                .isEqualTo(ValkeyCluster.slotOf("a"));
    }

    @Test
    void slotOf_knownKeys_matchValkey() {
        // values from CLUSTER KEYSLOT on valkey-server 8.0.1
        assertThat(ValkeyCluster.slotOf("foo")).isEqualTo(12182);
        assertThat(ValkeyCluster.slotOf("{job:settle}:lease")).isEqualTo(6277);
        assertThat(ValkeyCluster.slotOf("{user1000}.following")).isEqualTo(ValkeyCluster.slotOf("user1000"));
    }

    @Test
    void slotOf_emptyOrUnclosedTag_hashesWholeKey() {
        byte[] emptyTag = "{}x".getBytes(StandardCharsets.UTF_8);
        assertThat(ValkeyCluster.slotOf("{}x")).isEqualTo(ClusterSlots.crc16(emptyTag, 0, emptyTag.length) & 16383);
        byte[] unclosed = "{abc".getBytes(StandardCharsets.UTF_8);
        assertThat(ValkeyCluster.slotOf("{abc")).isEqualTo(ClusterSlots.crc16(unclosed, 0, unclosed.length) & 16383);
        assertThat(ValkeyCluster.slotOf("a{b}{c}")).isEqualTo(ValkeyCluster.slotOf("b"));
    }

    @Test
    void parse_clusterNodesLine_readsRoleAndSlots() {
        ClusterNodeLine line = ClusterNodeLine.parse(
                "07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@40004 "
                        + "myself,master - 0 1426238316232 4 connected 0-5460 7000 [93->-e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca]");
        assertThat(line.port()).isEqualTo(30004);
        assertThat(line.isMyself()).isTrue();
        assertThat(line.isPrimary()).isTrue();
        assertThat(line.ownsSlot(5460)).isTrue();
        assertThat(line.ownsSlot(7000)).isTrue();
        assertThat(line.ownsSlot(5461)).isFalse();
        assertThat(line.slotRanges()).containsExactly("0-5460", "7000");

        ClusterNodeLine replica =
                ClusterNodeLine.parse("e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@40001,"
                        + "host slave 07c37dfeb235213a872192d90877d0cd55635b91 0 1426238317239 4 connected");
        assertThat(replica.isReplicaOf("07c37dfeb235213a872192d90877d0cd55635b91"))
                .isTrue();
        assertThat(replica.port()).isEqualTo(30001);
    }
}
