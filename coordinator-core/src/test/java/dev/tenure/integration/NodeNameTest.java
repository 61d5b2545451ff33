package dev.tenure.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.Tenure;
import org.junit.jupiter.api.Test;

/** Issue 24, item 3: node names as people read them, by default host, application and pid; bad ones refused by name. */
class NodeNameTest {

    @Test
    void defaultName_isHostApplicationAndPid_orHostAndPidWithoutAnApplication() {
        assertThat(NodeName.compose("web-3", "invoicing", 22418)).isEqualTo("web-3/invoicing/22418");
        assertThat(NodeName.compose("web-3", null, 22418)).isEqualTo("web-3/22418");
        assertThat(NodeName.compose("web-3", "  ", 1)).isEqualTo("web-3/1");
        assertThat(NodeName.compose(null, "invoicing", 1)).isEqualTo("unknown-host/invoicing/1");
        long pid = ProcessHandle.current().pid();
        assertThat(NodeName.defaultName("invoicing")).isEqualTo(NodeName.host().strip() + "/invoicing/" + pid);
        assertThat(NodeName.defaultName()).isEqualTo(NodeName.host().strip() + "/" + pid);
    }

    @Test
    void defaultName_ofAVeryLongHost_isCutToTheLimit_keepingThePid() {
        String name = NodeName.compose("h".repeat(300), "app", 22418);
        assertThat(name).hasSize(NodeName.MAX_LENGTH).endsWith("/22418");
    }

    @Test
    void check_refusesBlankTooLongAndControlCharacters_namingTheProblem() {
        assertThat(NodeName.check("web-3/invoicing/22418")).isEqualTo("web-3/invoicing/22418");
        assertThatThrownBy(() -> NodeName.check(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a node name must not be blank (got '')");
        assertThatThrownBy(() -> NodeName.check(" \t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> NodeName.check("n".repeat(201)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("a node name must have at most 200 characters (got 201");
        assertThatThrownBy(() -> NodeName.check("web-3\nforged log line"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control characters")
                .hasMessageContaining("web-3?forged");
        assertThatThrownBy(() -> NodeName.check(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("node name");
    }

    @Test
    void theBuilder_refusesABadNodeName_andKeepsAGoodOne() {
        assertThatThrownBy(() -> Tenure.builder().nodeName(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be blank");
        try (Tenure t =
                Tenure.builder().inMemory().nodeName("web-3/invoicing/22418").build()) {
            assertThat(t.nodeName()).isEqualTo("web-3/invoicing/22418");
        }
        try (Tenure t = Tenure.inMemory()) {
            assertThat(t.nodeName()).isEqualTo(NodeName.defaultName());
        }
    }
}
