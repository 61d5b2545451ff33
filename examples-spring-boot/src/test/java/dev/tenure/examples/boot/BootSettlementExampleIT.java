package dev.tenure.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The example, run as its command runs it (a fresh JVM that starts two instance JVMs), prints what the README says. */
class BootSettlementExampleIT {

    @Test
    void twoInstances_settleEverySlotOnce_onBootsManagedVersions() {
        try (JvmProcess example = JvmProcess.start(BootSettlementExample.class)) {
            OptionalInt exit = example.waitFor(Timing.scaled(Duration.ofSeconds(150)));
            List<String> out = example.stdoutLines();
            out.forEach(System.out::println);
            assertThat(exit).as("exit; stderr %s", example.stderrLines()).hasValue(0);
            assertThat(example.stderrLines()).as("stderr").isEmpty();
            String versions = "(Flyway " + System.getProperty("tenure.boot.flyway") + ", HikariCP "
                    + System.getProperty("tenure.boot.hikaricp") + ")";
            assertThat(out)
                    .anyMatch(l -> l.startsWith("instance a up: http://127.0.0.1:") && l.endsWith(versions))
                    .anyMatch(l -> l.startsWith("instance b up: http://127.0.0.1:") && l.endsWith(versions));
            String summary = out.get(out.size() - 1);
            assertThat(summary).matches("slots settled: \\d+, settled twice: 0, instances that settled: [12]");
            assertThat(Integer.parseInt(summary.replaceAll("slots settled: (\\d+),.*", "$1")))
                    .isGreaterThanOrEqualTo(4);
            assertThat(out).filteredOn(l -> l.contains("  settled by ")).hasSizeGreaterThanOrEqualTo(4);
        }
    }
}
