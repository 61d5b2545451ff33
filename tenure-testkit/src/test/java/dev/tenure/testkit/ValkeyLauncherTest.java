package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValkeyLauncherTest {

    @Test
    void standalone_noBinaryNoDocker_failsWithInstallHint() {
        ValkeyLauncher launcher = new ValkeyLauncher(Map.of("PATH", "/nonexistent")::get, () -> false);
        assertThatThrownBy(() -> launcher.standalone(List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("apt-get install -t bookworm-backports valkey-server valkey-tools")
                .hasMessageContaining("TENURE_VALKEY_ADDRESS");
    }

    @Test
    void serverBinary_envPointsNowhere_failsNamingTheVariable() {
        ValkeyLauncher launcher =
                new ValkeyLauncher(Map.of(ValkeyLauncher.SERVER_BIN_ENV, "/no/valkey")::get, () -> false);
        assertThatThrownBy(launcher::serverBinary)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("TENURE_VALKEY_SERVER_BIN=/no/valkey");
    }

    @Test
    void requireServerBinary_noBinary_explainsClustersNeedIt() {
        ValkeyLauncher launcher = new ValkeyLauncher(Map.<String, String>of()::get, () -> true);
        assertThatThrownBy(() -> launcher.requireServerBinary("A Valkey cluster"))
                .hasMessageStartingWith("A Valkey cluster needs a local valkey-server");
    }

    @Test
    void options_groupsNamesWithValues() {
        assertThat(ValkeyArgs.options(List.of("--save", "", "--notify-keyspace-events", "KEA", "--x", "1", "2")))
                .containsExactly(List.of("save", ""), List.of("notify-keyspace-events", "KEA"), List.of("x", "1", "2"));
        assertThat(ValkeyArgs.password(List.of("--requirepass", "a", "--requirepass", "b")))
                .hasValue("b");
    }
}
