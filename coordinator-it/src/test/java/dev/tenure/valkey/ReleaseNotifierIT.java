package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import glide.api.GlideClient;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.NodeAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The release subscriptions against a real server, where a channel's last listener leaves just as a new one comes: the
 * unsubscription of the idle channel and the new subscription must reach the server in the order they were decided,
 * or the new listener is told "confirmed" while the server no longer sends it anything. The linger of an idle channel
 * is zero here, so every round puts the two on top of each other.
 */
class ReleaseNotifierIT {

    private static final int ROUNDS = 40;
    private static final int CHURNERS = 4;

    @Test
    void listenersComingAndGoingAtTheLingersEnd_aConfirmedListenerIsAlwaysSentTo() throws Exception {
        try (ValkeyServer server = ValkeyServers.standalone();
                ValkeyTimer timer = new ValkeyTimer();
                ReleaseNotifier notifier = new ReleaseNotifier(
                        ValkeyConfig.standalone(server.address())
                                .releaseChannelLinger(Duration.ZERO)
                                .build(),
                        timer);
                GlideClient publisher = GlideClient.createClient(GlideClientConfiguration.builder()
                                .address(NodeAddress.builder()
                                        .host(server.host())
                                        .port(server.port())
                                        .build())
                                .build())
                        .get()) {
            String channel = "{tenure:churn}:lease";
            Semaphore heard = new Semaphore(0);
            int missed = 0;
            ExecutorService pool = Executors.newFixedThreadPool(CHURNERS);
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    // listeners come and go on the channel from several threads: with a zero linger, every time the
                    // last one leaves, an unsubscription races the next listener's subscription
                    List<Future<?>> churn = new ArrayList<>();
                    for (int t = 0; t < CHURNERS; t++) {
                        churn.add(pool.submit(() -> {
                            for (int i = 0; i < 25; i++) {
                                AutoCloseable l = notifier.subscribe(channel, null, () -> {});
                                pauseMicros(ThreadLocalRandom.current().nextInt(300));
                                l.close();
                                pauseMicros(ThreadLocalRandom.current().nextInt(300));
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : churn) {
                        f.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
                    }
                    // then one listener stays: once it is confirmed, a release must reach it
                    try (AutoCloseable stays = notifier.subscribe(channel, null, heard::release)) {
                        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> notifier.isConfirmed(channel));
                        heard.drainPermits();
                        publisher.publish("r", channel).get();
                        if (!heard.tryAcquire(Timing.scaledMillis(2000), TimeUnit.MILLISECONDS)) {
                            missed++;
                        }
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            System.out.printf(
                    "%d rounds: %d releases not delivered to a listener that was confirmed%n", ROUNDS, missed);
            assertThat(missed)
                    .as("rounds whose confirmed listener heard nothing")
                    .isZero();
        }
    }

    private static void pauseMicros(int micros) {
        LockSupport.parkNanos(micros * 1_000L);
    }
}
