package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresSource;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Valkey frozen (SIGSTOP) and Postgres stopped at once: every fire of a coordinated job is refused (fail closed),
 * within the configured timeouts, and the trigger stays healthy, so the first fire after recovery executes. One node
 * per plug-in style, each on its own job.
 */
class QuartzOutageIT {

    private static QuartzServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new QuartzServers(QuartzOutageIT.class, PostgresSource.EMBEDDED);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void valkeyAndPostgresUnreachable_firesRefused_nextFireAfterRecoveryExecutes() throws Exception {
        JvmProcess listeners = servers.node("nl", "ram", "listeners", "tick-l", 2000);
        JvmProcess factory = servers.node("nf", "ram", "factory", "tick-f", 2000);
        List<JvmProcess> nodes = List.of(listeners, factory);
        for (JvmProcess n : nodes) {
            n.awaitStdoutLine(l -> l.startsWith("EXECUTED "), Timing.scaled(Duration.ofSeconds(60)));
        }

        servers.valkey.pause();
        servers.db.stopServer();
        try {
            Instant outage = Instant.now();
            await().atMost(Timing.scaled(Duration.ofSeconds(30)))
                    .until(() -> faultsAfter(listeners, "vetoed:FAULT", outage) >= 3
                            && faultsAfter(factory, "skipped:FAULT", outage) >= 3);
        } finally {
            servers.db.startServer();
            servers.valkey.resume();
        }
        Instant recovered = Instant.now();
        for (JvmProcess n : nodes) {
            String line = n.awaitStdoutLine(
                    l -> l.startsWith("EXECUTED ") && slot(l).isAfter(recovered),
                    Timing.scaled(Duration.ofSeconds(30)));
            assertThat(line).startsWith("EXECUTED ");
        }
        assertThat(servers.executionsPerSlot("tick-l").values()).allMatch(n -> n == 1);
        assertThat(servers.executionsPerSlot("tick-f").values()).allMatch(n -> n == 1);
        System.out.printf(
                "[quartz outage] refused fires during the outage: listeners %d, factory %d%n",
                faultsAfter(listeners, "vetoed:FAULT", Instant.EPOCH),
                faultsAfter(factory, "skipped:FAULT", Instant.EPOCH));
    }

    private static long faultsAfter(JvmProcess node, String marker, Instant after) {
        return node.stdoutLines().stream()
                .filter(l -> l.startsWith("NOT_RUN ") && l.endsWith(" " + marker) && slot(l).isAfter(after))
                .count();
    }

    private static Instant slot(String line) {
        return Instant.parse(line.split(" ")[1]);
    }
}
