package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Issue 35 item 7: an election names its participant by the node's name, as the runs, {@code swept_by} and the console
 * do, not by {@code pid@host}; the random suffix still keeps two participants of one node apart.
 */
class ElectionNodeNameTest {

    private static final LeaderElection.Listener NONE = new LeaderElection.Listener() {
        @Override
        public void elected(long epoch) {}

        @Override
        public void revoked(String reason) {}
    };

    @Test
    void leaderElection_withoutALabel_isNamedByTheNodeName_plusAShortId() {
        try (Tenure tenure =
                Tenure.builder().inMemory().nodeName("vm/billing/4446").build()) {
            LeaderElection a = tenure.leaderElection("role", NONE);
            LeaderElection b = tenure.leaderElection("role", NONE);
            assertThat(a.owner()).matches("vm/billing/4446#[0-9a-f]{8}");
            assertThat(b.owner()).startsWith("vm/billing/4446#").isNotEqualTo(a.owner());
        }
    }

    @Test
    void leaderElection_aNodeNameOverAHundredCharacters_isCutForTheLabel() {
        String name = "n".repeat(150);
        try (Tenure tenure = Tenure.builder().inMemory().nodeName(name).build()) {
            assertThat(tenure.leaderElection("role", NONE).owner()).startsWith("n".repeat(100) + "#");
        }
    }
}
