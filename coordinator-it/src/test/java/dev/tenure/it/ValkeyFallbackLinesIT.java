package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.JobCoordinator;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 21 item 6 on real servers: a node in its own JVM says at start-up how it coordinates, and when its Valkey is
 * killed and later restarted it logs one line when the fallback starts and one when it ends, each with the reason, and
 * one WARN about the unreachable Valkey (at most one a minute), not one per failed run.
 */
class ValkeyFallbackLinesIT {

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(ValkeyFallbackLinesIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void valkeyKilledAndRestarted_oneLineWhenTheFallbackStarts_oneWhenItEnds_oneWarn() throws Exception {
        String address = servers.valkey.address();
        try (JvmProcess node = JvmProcess.start(
                LoopWorker.class,
                JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK.name(),
                address,
                servers.db.jdbcUrl(),
                servers.db.username(),
                servers.passwordArg(),
                "loud-job",
                "120",
                "100",
                "2000")) { // runs until the test closes it
            node.awaitStdoutLine(
                    l -> l.startsWith("OUTCOME ") && l.contains(" EXECUTED "), Timing.scaled(Duration.ofSeconds(30)));
            servers.valkey.kill();
            long killedAt = System.currentTimeMillis();
            try {
                await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                        .until(() -> stderr(node, "Valkey fallback started").size() == 1);
                Thread.sleep(1000); // runs keep failing over to the database meanwhile
            } finally {
                servers.valkey.restart();
            }
            long restartedAt = System.currentTimeMillis();
            await().atMost(Timing.scaled(Duration.ofSeconds(30)))
                    .until(() -> stderr(node, "Valkey fallback ended").size() == 1);
            long executed = node.stdoutLines().stream()
                    .filter(l -> l.startsWith("OUTCOME ") && l.contains(" EXECUTED "))
                    .count();
            stderr(node, "Tenure: ").forEach(System.out::println);
            stderr(node, "Valkey").forEach(System.out::println);
            System.out.printf("Valkey down %d ms; %d runs EXECUTED so far%n", restartedAt - killedAt, executed);

            assertThat(stderr(
                            node,
                            "INFO dev.tenure.Tenure - Tenure: mode VALKEY_WITH_DATABASE_FALLBACK, Valkey " + address))
                    .as("the start-up line")
                    .hasSize(1);
            assertThat(stderr(node, "Valkey fallback started"))
                    .hasSize(1)
                    .allSatisfy(l -> assertThat(l).contains("WARN").contains("Valkey " + address + ": "));
            assertThat(stderr(node, "Valkey fallback ended"))
                    .hasSize(1)
                    .allSatisfy(l -> assertThat(l).contains("INFO").contains("Valkey answers again"));
            assertThat(stderr(node, "database alone, which decides as always"))
                    .as("WARN lines while Valkey was down")
                    .hasSize(1)
                    .allSatisfy(l -> assertThat(l).contains("WARN").contains("Valkey " + address + ": "));
        }
    }

    private static List<String> stderr(JvmProcess node, String containing) {
        return node.stderrLines().stream().filter(l -> l.contains(containing)).toList();
    }
}
