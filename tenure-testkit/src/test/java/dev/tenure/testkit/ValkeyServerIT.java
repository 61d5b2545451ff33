package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ValkeyServerIT {

    @Test
    void command_setThenGet_returnsValue() {
        try (ValkeyServer server = ValkeyServers.standalone()) {
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(server.command("GET", "k")).isEqualTo("v");
            assertThat(server.command("GET", "missing")).isNull();
            assertThat(server.command("INCR", "n")).isEqualTo(1L);
            assertThat(server.command("MGET", "k", "missing")).isEqualTo(java.util.Arrays.asList("v", null));
            assertThat(server.address()).isEqualTo("127.0.0.1:" + server.port());
            assertThat(server.port()).isBetween(20_000, 40_000);
        }
    }

    @Test
    void command_unknownCommand_throwsReplyException() {
        try (ValkeyServer server = ValkeyServers.standalone()) {
            assertThatThrownBy(() -> server.command("NOSUCHCOMMAND"))
                    .isInstanceOf(ValkeyReplyException.class)
                    .extracting(e -> ((ValkeyReplyException) e).code())
                    .isEqualTo("ERR");
        }
    }

    @Test
    void pipeline_errorInTheMiddle_returnsItAsElement() {
        try (ValkeyServer server = ValkeyServers.standalone()) {
            List<Object> replies = server.pipeline(List.of(
                    List.of("MULTI"),
                    List.of("SET", "k", "v"),
                    List.of("NOSUCHCOMMAND"),
                    List.of("EXEC"),
                    List.of("GET", "k")));

            assertThat(replies).hasSize(5);
            assertThat(replies.get(0)).isEqualTo("OK");
            assertThat(replies.get(1)).isEqualTo("QUEUED");
            assertThat(replies.get(2)).isInstanceOf(ValkeyReplyException.class);
            assertThat(replies.get(3)).isInstanceOf(ValkeyReplyException.class); // EXECABORT
            assertThat(replies.get(4)).isNull();
        }
    }

    @Test
    void pause_thenCommandWithShortTimeout_timesOutUntilResumed() {
        try (ValkeyServer server = ValkeyServers.standalone()) {
            server.pause();
            assertThat(server.isAlive()).isTrue();
            assertThatThrownBy(() -> server.command(Duration.ofMillis(300), "PING"))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(SocketTimeoutException.class);

            server.resume();
            assertThat(server.command(Duration.ofMillis(300), "PING")).isEqualTo("PONG");
        }
    }

    @Test
    void kill_thenRestart_samePortAnswersWithEmptyData() {
        try (ValkeyServer server = ValkeyServers.standalone()) {
            int port = server.port();
            long firstPid = server.pid();
            server.command("SET", "k", "v");

            server.kill();
            assertThat(server.isAlive()).isFalse();
            assertThat(ProcessHandle.of(firstPid)).isEmpty();
            assertThatThrownBy(() -> server.command(Duration.ofMillis(300), "PING"))
                    .isInstanceOf(UncheckedIOException.class);

            server.restart();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.pid()).isNotEqualTo(firstPid);
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.command("GET", "k")).isNull();
        }
    }

    @Test
    void close_pausedServer_leavesNoProcessAndNoDirectory() {
        ValkeyServer server = ValkeyServers.standalone();
        long pid = server.pid();
        java.nio.file.Path dir = server.logFile().orElseThrow().getParent();
        server.pause();

        server.close();
        server.close();

        assertThat(ProcessHandle.of(pid)).isEmpty();
        assertThat(dir).doesNotExist();
    }

    @Test
    void stop_runningServer_exitsCleanly() {
        try (ValkeyServer server = ValkeyServers.standalone()) {
            long pid = server.pid();
            server.stop();
            assertThat(server.isAlive()).isFalse();
            assertThat(ProcessHandle.of(pid)).isEmpty();
        }
    }

    @Test
    void standalone_extraArgs_areApplied() {
        try (ValkeyServer server = ValkeyServers.standalone("--notify-keyspace-events", "KEA")) {
            assertThat(server.command("CONFIG", "GET", "notify-keyspace-events"))
                    .isEqualTo(List.of("notify-keyspace-events", "AKE"));
            assertThat(server.command("DEBUG", "SLEEP", "0")).isEqualTo("OK");
        }
    }

    @Test
    void command_requirepass_authenticatesAutomatically() {
        try (ValkeyServer server = ValkeyServers.standalone("--requirepass", "s3cret")) {
            assertThat(server.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(server.command("ACL", "WHOAMI")).isEqualTo("default");
        }
    }

    @Test
    void standalone_twoServers_getDifferentPortsAndDirectories() {
        try (ValkeyServer first = ValkeyServers.standalone();
                ValkeyServer second = ValkeyServers.standalone()) {
            assertThat(first.port()).isNotEqualTo(second.port());
            assertThat(first.logFile()).isNotEqualTo(second.logFile());
        }
    }

    @Nested
    class External {

        @Test
        void standalone_addressEnvSet_returnsHandleWithoutProcessControl() {
            try (ValkeyServer real = ValkeyServers.standalone()) {
                Map<String, String> env = Map.of(ValkeyLauncher.ADDRESS_ENV, real.address());
                ValkeyLauncher launcher = new ValkeyLauncher(env::get, () -> false);

                try (ValkeyServer external = launcher.standalone(List.of("--notify-keyspace-events", "Kx"))) {
                    assertThat(external.address()).isEqualTo(real.address());
                    assertThat(external.isAlive()).isTrue();
                    assertThat(external.command("PING")).isEqualTo("PONG");
                    assertThat(real.command("CONFIG", "GET", "notify-keyspace-events"))
                            .isEqualTo(List.of("notify-keyspace-events", "xK"));
                    assertThatThrownBy(external::kill)
                            .isInstanceOf(UnsupportedOperationException.class)
                            .hasMessageContaining("TENURE_VALKEY_ADDRESS");
                    assertThatThrownBy(external::pause).isInstanceOf(UnsupportedOperationException.class);
                    assertThatThrownBy(external::restart).isInstanceOf(UnsupportedOperationException.class);
                }
                assertThat(real.isAlive()).isTrue();
            }
        }
    }
}
