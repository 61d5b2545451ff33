package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.valkey.FailoverProbe.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailoverProbeTest {

    private static Role primary(String a, long offset) {
        return new Role(a, true, true, offset);
    }

    private static Role replica(String a) {
        return new Role(a, true, false, 0);
    }

    private static Role down(String a) {
        return new Role(a, false, false, 0);
    }

    @Test
    void choose_currentStillPrimary_stays() {
        assertThat(FailoverProbe.choose("a", List.of(primary("a", 10), primary("b", 20))))
                .isNull();
    }

    @Test
    void choose_currentDown_oneCandidateWithHistory_moves() {
        assertThat(FailoverProbe.choose("a", List.of(down("a"), primary("b", 20))))
                .isEqualTo("b");
    }

    @Test
    void choose_currentDemotedToReplica_moves() {
        assertThat(FailoverProbe.choose("a", List.of(replica("a"), primary("b", 5))))
                .isEqualTo("b");
    }

    @Test
    void choose_candidateWithoutReplicationHistory_isNotTrusted() {
        // an old primary restarted empty answers as primary with offset 0
        assertThat(FailoverProbe.choose("b", List.of(primary("a", 0), down("b"))))
                .isNull();
    }

    @Test
    void choose_twoCandidates_ambiguousStays() {
        assertThat(FailoverProbe.choose("a", List.of(down("a"), primary("b", 5), primary("c", 7))))
                .isNull();
    }

    @Test
    void choose_noCandidate_stays() {
        assertThat(FailoverProbe.choose("a", List.of(down("a"), replica("b")))).isNull();
    }

    @Test
    void parse_promotedReplicaWithoutWrites_hasHistoryFromItsPreviousReplicationId() {
        Role r = FailoverProbe.parse(
                "a",
                "# Replication\r\nrole:master\r\nmaster_replid:abc\r\n"
                        + "master_replid2:9f8e7d6c5b4a39281706f5e4d3c2b1a098765432\r\nmaster_repl_offset:0\r\n");
        assertThat(r.primary()).isTrue();
        assertThat(r.offset()).isPositive();
    }

    @Test
    void parse_primaryRestartedEmpty_hasNoHistory() {
        Role r = FailoverProbe.parse(
                "a",
                "# Replication\r\nrole:master\r\nmaster_replid2:0000000000000000000000000000000000000000\r\n"
                        + "master_repl_offset:0\r\n");
        assertThat(r.primary()).isTrue();
        assertThat(r.offset()).isZero();
    }

    @Test
    void parse_replica_isNotPrimary() {
        Role r = FailoverProbe.parse("a", "# Replication\r\nrole:slave\r\nmaster_repl_offset:500\r\n");
        assertThat(r.primary()).isFalse();
    }
}
