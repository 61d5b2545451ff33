package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * A plain-lock loop starts no thread per lock, on a host with two CPUs (where the common pool has one worker and
 * {@code CompletableFuture}'s default async executor starts a thread per task). The loop runs in a JVM of its own,
 * told it has two CPUs, and counts the threads the JVM started from before the first lock until well after the
 * release channels' linger ended.
 */
class ThreadsPerLockIT {

    private static final int PAIRS = 3_000;
    /** Threads a Leases over Valkey may start in all: GLIDE's, the watchdog, the cleanup, the timer, a few spare. */
    private static final int HANDFUL = 16;
    /** Threads the JVM may start once the loop ended: none is needed, one or two for the JVM's own business. */
    private static final int LATER = 2;

    @Test
    void threeThousandLockReleasePairs_startAHandfulOfThreads_duringAndAfterTheLinger() throws Exception {
        try (ValkeyServer valkey = ValkeyServers.standalone();
                JvmProcess loop = JvmProcess.start(
                        List.of("-XX:ActiveProcessorCount=2"),
                        PlainLockLoop.class.getName(),
                        List.of(valkey.address(), Integer.toString(PAIRS), "300"))) {
            OptionalInt exit = loop.waitFor(Timing.scaled(Duration.ofSeconds(90)));
            assertThat(exit)
                    .as("the loop's JVM ended: %s %s", loop.stdoutLines(), loop.stderrLines())
                    .hasValue(0);
            String line = loop.stdoutLines().stream()
                    .filter(l -> l.startsWith("threads "))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no count from the loop: " + loop.stdoutLines()));
            System.out.println(line);
            String[] f = line.split(" ");
            int parallelism = Integer.parseInt(f[2]);
            int pairs = Integer.parseInt(f[4]);
            int during = Integer.parseInt(f[6]);
            int later = Integer.parseInt(f[8]);
            assertThat(parallelism)
                    .as("the child JVM saw two CPUs: the common pool has one worker")
                    .isEqualTo(1);
            assertThat(pairs).as("every lock was granted and released").isEqualTo(PAIRS);
            assertThat(during + later)
                    .as("threads started by %d lock/release pairs, in the loop and once it ended", PAIRS)
                    .isLessThanOrEqualTo(HANDFUL);
            assertThat(later)
                    .as("threads started once the loop ended, as the release channels' linger ran out")
                    .isLessThanOrEqualTo(LATER);
        }
    }
}
