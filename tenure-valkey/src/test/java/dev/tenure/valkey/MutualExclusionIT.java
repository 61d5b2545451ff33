package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Leases;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.CounterFuzzer;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyCluster;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance 1: 32 threads, and separately 3 JVM processes, increment one unsynchronised counter (a plain file)
 * under a lease, 2,000 times in all: no update is lost, on standalone Valkey and on a cluster.
 */
class MutualExclusionIT {

    private static final int INCREMENTS = 2_000;

    abstract static class Scenario {
        @TempDir
        Path dir;

        abstract ValkeyConfig.Builder config();

        abstract String mode();

        abstract String addresses();

        @Test
        void counter_32threadsOneProcess_noLostUpdates() throws Exception {
            Path counter = CounterFuzzer.newCounter(dir);
            try (Leases leases = Leases.of(ValkeyLeaseStore.create(config().build()))) {
                int made = CounterFuzzer.hammer(leases, "counter-threads", counter, 32, INCREMENTS);
                assertThat(made).isEqualTo(INCREMENTS);
            }
            assertThat(CounterFuzzer.read(counter)).isEqualTo(INCREMENTS);
        }

        @Test
        void counter_3processes_noLostUpdates() throws Exception {
            Path counter = CounterFuzzer.newCounter(dir);
            int[] share = {667, 667, 666};
            int[] threads = {11, 11, 10};
            List<JvmProcess> procs = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    procs.add(JvmProcess.start(
                            CounterFuzzerMain.class,
                            mode(),
                            addresses(),
                            "counter-procs",
                            counter.toString(),
                            Integer.toString(threads[i]),
                            Integer.toString(share[i])));
                }
                int made = 0;
                for (JvmProcess p : procs) {
                    String done = p.awaitStdoutLine(l -> l.startsWith("DONE "), Timing.scaled(Duration.ofMinutes(3)));
                    made += Integer.parseInt(done.substring(5).trim());
                    OptionalInt exit = p.waitFor(Timing.scaled(Duration.ofSeconds(30)));
                    assertThat(exit).as("exit code of %s", p).hasValue(0);
                }
                assertThat(made).isEqualTo(INCREMENTS);
            } finally {
                procs.forEach(JvmProcess::close);
            }
            assertThat(CounterFuzzer.read(counter)).isEqualTo(INCREMENTS);
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Standalone extends Scenario {
        private ValkeyServer server;

        @BeforeAll
        void start() {
            server = ValkeyServers.standalone();
        }

        @AfterAll
        void stop() {
            server.close();
        }

        @Override
        ValkeyConfig.Builder config() {
            return ValkeyConfig.standalone(server.address());
        }

        @Override
        String mode() {
            return "standalone";
        }

        @Override
        String addresses() {
            return server.address();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Cluster extends Scenario {
        private ValkeyCluster cluster;

        @BeforeAll
        void start() {
            cluster = ValkeyServers.cluster();
        }

        @AfterAll
        void stop() {
            cluster.close();
        }

        @Override
        ValkeyConfig.Builder config() {
            return ValkeyConfig.cluster(cluster.seedAddresses().toArray(String[]::new));
        }

        @Override
        String mode() {
            return "cluster";
        }

        @Override
        String addresses() {
            return String.join(",", cluster.seedAddresses());
        }
    }
}
