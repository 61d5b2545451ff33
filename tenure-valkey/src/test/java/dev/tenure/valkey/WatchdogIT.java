package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.Leases;
import dev.tenure.ReleaseResult;
import dev.tenure.ValkeyConfig;
import dev.tenure.metrics.MetricNames;
import dev.tenure.metrics.MicrometerLeaseMetrics;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Acceptance 2 and 3: ownership checks, and the watchdog keeping, and losing, leases on a real Valkey. */
class WatchdogIT {

    private static final LeaseOptions TWO_SECONDS = LeaseOptions.ofTtl(Duration.ofSeconds(2));

    private static ValkeyServer server;
    private ValkeyLeaseStore store;
    private Leases leases;
    private SimpleMeterRegistry registry;

    @BeforeAll
    static void startServer() {
        server = ValkeyServers.standalone();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void open() {
        store = ValkeyLeaseStore.create(ValkeyConfig.standalone(server.address())
                .requestTimeout(Duration.ofMillis(300))
                .build());
        registry = new SimpleMeterRegistry();
        leases = Leases.builder(store)
                .metrics(new MicrometerLeaseMetrics(registry))
                .build();
    }

    @AfterEach
    void close() {
        if (server.isAlive()) {
            server.resume();
        }
        leases.close();
    }

    @Test
    void renewAndRelease_byNonOwner_changeNothing() {
        Lease lease = leases.tryAcquire("owned", TWO_SECONDS).orElseThrow();
        String key = store.leaseKeyOf("owned");
        Object pttlBefore = server.command("PTTL", key);
        assertThat(store.renew("owned", "intruder", Duration.ofMinutes(5)).join())
                .isFalse();
        assertThat(store.release("owned", "intruder").join()).isFalse();
        assertThat(server.command("GET", key)).isEqualTo(lease.owner());
        assertThat((Long) server.command("PTTL", key))
                .isLessThanOrEqualTo((Long) pttlBefore)
                .isPositive();
        assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
        assertThat(server.command("EXISTS", key)).isEqualTo(0L);
    }

    @Test
    void release_afterLoss_reportsLost() {
        Lease lease = leases.tryAcquire("lost-then-released", TWO_SECONDS).orElseThrow();
        server.command("SET", store.leaseKeyOf("lost-then-released"), "someone-else", "PX", "60000");
        assertThat(lease.release()).isEqualTo(ReleaseResult.LOST);
        assertThat(lease.state()).isEqualTo(LeaseState.LOST);
        assertThat(server.command("GET", store.leaseKeyOf("lost-then-released")))
                .isEqualTo("someone-else");
    }

    @Test
    void watchdog_2sTtlHeld10s_staysActive() throws Exception {
        Lease lease = leases.tryAcquire("long-job", TWO_SECONDS).orElseThrow();
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos(); // unscaled: how long it is watched
        while (System.nanoTime() < end) {
            assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(lease.isValid()).isTrue();
            assertThat(server.command("GET", store.leaseKeyOf("long-job"))).isEqualTo(lease.owner());
            Thread.sleep(250);
        }
        assertThat(leases.tryAcquire("long-job")).isEmpty();
        assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
    }

    @Test
    void keyDeletedFromOutside_leaseLostWithinOneRenewalPeriod() {
        Lease lease = leases.tryAcquire("deleted", TWO_SECONDS).orElseThrow();
        AtomicLong lostAt = new AtomicLong();
        lease.onLost(l -> lostAt.set(System.nanoTime()));
        server.command("DEL", store.leaseKeyOf("deleted"));
        long deletedAt = System.nanoTime();
        Duration period = TWO_SECONDS.renewEvery();
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> lease.state() == LeaseState.LOST);
        Duration took = Duration.ofNanos(lostAt.get() - deletedAt);
        System.out.printf(
                "lease LOST %d ms after its key was deleted (renewal period %d ms)%n",
                took.toMillis(), period.toMillis());
        assertThat(took).isLessThanOrEqualTo(period.plus(Timing.scaled(Duration.ofMillis(500))));
        assertThat(registry.counter(MetricNames.LOST).count()).isEqualTo(1.0);
        assertThat(lease.release()).isEqualTo(ReleaseResult.LOST);
    }

    @Test
    void valkeyPausedPastDeadline_leaseLostByTheDeadline() {
        Lease lease = leases.tryAcquire("paused", TWO_SECONDS).orElseThrow();
        AtomicLong lostAt = new AtomicLong();
        lease.onLost(l -> lostAt.set(System.nanoTime()));
        long deadline = System.nanoTime() + lease.remaining().toNanos();
        server.pause();
        try {
            await().atMost(Timing.scaled(Duration.ofSeconds(6))).until(() -> lease.state() == LeaseState.LOST);
        } finally {
            server.resume();
        }
        long lateMs = Duration.ofNanos(lostAt.get() - deadline).toMillis();
        System.out.printf("lease LOST %d ms after its local deadline (Valkey paused)%n", lateMs);
        // LOST only once the deadline (pushed forward by renewals that succeeded before the pause) has passed,
        // and no later than the watchdog's next look after it.
        assertThat(lease.isValid()).isFalse();
        assertThat(lateMs).isGreaterThanOrEqualTo(0).isLessThanOrEqualTo(Timing.scaledMillis(1000));
        assertThat(registry.counter(MetricNames.RENEW_FAILURES).count()).isPositive();
    }
}
