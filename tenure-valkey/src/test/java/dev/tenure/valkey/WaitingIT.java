package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Lease;
import dev.tenure.Leases;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Waiting for a key held by another Leases instance (another engine: its holders are "elsewhere"): back-off,
 * no busy loop, and an early wake-up by the release notification.
 */
class WaitingIT {

    private static ValkeyServer server;
    private static Leases holderSide;
    private static Leases waiterSide;
    private static ValkeyLeaseStore waiterStore;

    @BeforeAll
    static void start() {
        server = ValkeyServers.standalone();
        holderSide = Leases.of(ValkeyLeaseStore.create(
                ValkeyConfig.standalone(server.address()).clientName("holder").build()));
        waiterStore = ValkeyLeaseStore.create(
                ValkeyConfig.standalone(server.address()).clientName("waiter").build());
        waiterSide = Leases.of(waiterStore);
    }

    @AfterAll
    static void stop() {
        holderSide.close();
        waiterSide.close();
        server.close();
    }

    private static long calls(String command) {
        return server.commandCalls().getOrDefault(command, 0L);
    }

    @Test
    void waiter_isWokenByTheReleaseNotification_withoutBusyPolling() throws Exception {
        List<Long> gaps = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            String key = "wake-" + round;
            Lease held = holderSide.tryAcquire(key).orElseThrow();
            long evalBefore = calls("evalsha");
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(
                    () -> waiterSide.acquire(key, Duration.ofSeconds(20), waiterSide.defaults()));
            Thread.sleep(2500);
            Object n = server.command("PUBSUB", "NUMSUB", waiterStore.leaseKeyOf(key));
            long attempts = calls("evalsha") - evalBefore;
            long publishBefore = calls("publish");
            long releasedAt = System.nanoTime();
            held.release();
            Lease got = waiting.get(Timing.scaledMillis(10_000), java.util.concurrent.TimeUnit.MILLISECONDS)
                    .orElseThrow();
            long gapMs = Duration.ofNanos(System.nanoTime() - releasedAt).toMillis();
            gaps.add(gapMs);
            System.out.printf(
                    "round %d: %d attempts in 2.5 s of waiting, subscribers %s, woken %d ms after release%n",
                    round, attempts, n, gapMs);
            assertThat(attempts)
                    .as("attempts while waiting 2.5 s (back-off, no busy loop)")
                    .isBetween(1L, 40L);
            assertThat(n.toString()).contains("1");
            assertThat(calls("publish") - publishBefore)
                    .as("the release published a notification")
                    .isEqualTo(1);
            got.release();
        }
        Collections.sort(gaps);
        // polling alone would take up to the 500 ms back-off cap; the notification takes a round trip or two
        assertThat(gaps.get(gaps.size() / 2)).as("median wake-up gap, ms").isLessThan(Timing.scaledMillis(250));
    }
}
