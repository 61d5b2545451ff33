package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseOutcomeUnknownException;
import dev.tenure.LeaseState;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.Leases;
import dev.tenure.ReleaseResult;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyReplicationGroup;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone primary with one replica, configured with both addresses. After kill -9 of the primary and
 * {@code REPLICAOF NO ONE} on the replica, the same {@link Leases} instance must find the promoted replica by itself
 * (GLIDE's standalone client keeps the primary it found at creation; Tenure's failover probe asks every address for
 * its ROLE), and a lease kept across the failover must never look valid while the new primary does not hold it.
 *
 * <p>The methods run in order: the second one kills the primary. {@link StandaloneFailoverTwoClientsIT} runs them all again with two GLIDE
 * clients in the store, which must all move to the promoted replica.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StandaloneFailoverIT {

    private static final Logger LOG = LoggerFactory.getLogger(StandaloneFailoverIT.class);
    private static final Duration CALL_BOUND = Timing.scaled(Duration.ofSeconds(5));
    /** Waited on before the failover so that the replica's subscription gets moved, not created afresh. */
    private static final String NOTIFY_KEY = "notify-after-failover";

    private ValkeyReplicationGroup group;
    private ValkeyConfig config;
    private ValkeyLeaseStore store;
    private Leases leases;

    /** The GLIDE clients of the store under test ({@link ValkeyConfig.Builder#clients}). */
    int clients() {
        return 1;
    }

    /** The client name of the store under test, so its connections can be counted on the server. */
    private String clientName() {
        return "failover-c" + clients();
    }

    @BeforeAll
    void start() {
        group = ValkeyServers.primaryWithReplica();
        config = ValkeyConfig.standalone(
                        group.primary().address(), group.replica().address())
                .requestTimeout(Duration.ofMillis(300))
                .failoverProbeInterval(Duration.ofMillis(300))
                .clients(clients())
                .clientName(clientName())
                .build();
        store = ValkeyLeaseStore.create(config);
        leases = Leases.of(store);
    }

    @AfterAll
    void stop() {
        if (leases != null) {
            leases.close();
        }
        if (group != null) {
            group.close();
        }
    }

    @Test
    @Order(1)
    void tryAcquire_healthyPrimary_holdsKeyOnPrimaryUntilReleased() {
        ValkeyServer primary = group.primary();
        Lease lease = leases.tryAcquire("before-failover").orElseThrow();

        assertThat(primary.command("GET", store.leaseKeyOf("before-failover"))).isEqualTo(lease.owner());
        assertThat(leases.tryAcquire("before-failover")).isEmpty();
        assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
        assertThat(primary.command("GET", store.leaseKeyOf("before-failover"))).isNull();
    }

    @Test
    @Order(2)
    void leases_primaryKilledAndReplicaPromoted_workAgainThroughSameInstance() throws Exception {
        ValkeyServer replica = group.replica();
        subscribeBeforeFailover();
        Lease kept = acquireReplicated("kept-across-failover", LeaseOptions.ofTtl(Duration.ofSeconds(3)));
        // Renewed every 300 ms but valid for 30 s: only a refused renewal can make it LOST within the test.
        Lease dropped = acquireReplicated(
                "dropped-by-failover",
                LeaseOptions.ofTtl(Duration.ofSeconds(30)).withRenewEvery(Duration.ofMillis(300)));
        AtomicLong lostAt = new AtomicLong();
        dropped.onLost(l -> lostAt.set(System.nanoTime()));

        long killedAt;
        long promotedAt;
        long firstLeaseAt;
        try (OwnershipMonitor monitor = new OwnershipMonitor(kept, replica, store.leaseKeyOf(kept.key()))) {
            killedAt = System.nanoTime();
            group.primary().kill();
            assertFailsTypedAndBounded("during-outage");
            assertFailsTypedAndBounded("during-outage");
            group.promoteReplica();
            promotedAt = System.nanoTime();
            // A write the replica never got: the promoted replica does not know this lease.
            replica.command("DEL", store.leaseKeyOf(dropped.key()));

            firstLeaseAt = awaitLeaseOn(replica, "after-failover", Timing.scaled(Duration.ofSeconds(15)));
            await("the lease whose key the new primary lacks to become LOST")
                    .atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> dropped.state() == LeaseState.LOST);
            await("no valid lease the new primary does not hold, for a while after recovery")
                    .during(Duration.ofMillis(1500))
                    .atMost(Timing.scaled(Duration.ofMillis(2500)))
                    .until(() -> monitor.violations().isEmpty());
            assertThat(monitor.violations()).isEmpty();
            assertThat(monitor.checks()).isGreaterThan(10);
        }
        LOG.info(
                "standalone failover: first lease {} ms after kill -9, {} ms after promotion; the lease the new "
                        + "primary lacked was LOST {} ms after promotion; the lease kept across the failover is {}",
                millis(firstLeaseAt - killedAt),
                millis(firstLeaseAt - promotedAt),
                millis(lostAt.get() - promotedAt),
                kept.state());
        assertThat(dropped.isValid()).isFalse();
        for (int i = 0; i < 32; i++) { // 32 keys reach every client of the store
            assertThat(leases.tryAcquire("lane-" + i).orElseThrow().release()).isEqualTo(ReleaseResult.RELEASED);
        }
        // Connections that only ran INFO are not counted: those of the failover probe, one of which outlives its close.
        await("every client of the store, and its release notifier, connected to the promoted replica")
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .untilAsserted(() -> assertThat(ValkeyClientsIT.named(replica, clientName(), "info"))
                        .as(
                                "connections named %s on the promoted replica: %s",
                                clientName(), replica.command("CLIENT", "LIST"))
                        .isEqualTo(clients() + 1));
        assertThat(kept.release()).isIn(ReleaseResult.RELEASED, ReleaseResult.LOST);
        await().atMost(Timing.scaled(Duration.ofSeconds(1)))
                .until(() -> replica.command("GET", store.leaseKeyOf(kept.key())) == null);
    }

    @Test
    @Order(3)
    void releaseNotification_afterFailover_arrivesThroughMovedSubscription() throws Exception {
        ValkeyServer promoted = group.replica();
        await("the release subscription to move to the promoted replica")
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> subscribers(promoted, store.leaseKeyOf(NOTIFY_KEY)) == 1);
        CountDownLatch released = new CountDownLatch(1);
        // The channel is still subscribed (it lingers 30 s), so this listener relies on the moved subscription.
        try (AutoCloseable listener = store.subscribeReleases(NOTIFY_KEY, released::countDown);
                // another process's store: the class's 300 ms request timeout (kept short for the failover cases) ran
                // out on its acquire once under two busy loops, and this case is about the notification
                Leases elsewhere = Leases.of(ValkeyLeaseStore.create(ValkeyConfig.standalone(
                                group.primary().address(), group.replica().address())
                        .requestTimeout(Duration.ofSeconds(3))
                        .clientName(clientName() + "-elsewhere")
                        .build()))) {
            Lease holder = elsewhere.tryAcquire(NOTIFY_KEY).orElseThrow();
            // A waiter's attempt: finding the lease held, it leaves the marker that makes the release notify.
            assertThat(definite(() -> leases.tryAcquire(NOTIFY_KEY))).isEmpty();

            assertThat(holder.release()).isEqualTo(ReleaseResult.RELEASED);
            assertThat(released.await(Timing.scaledMillis(5_000), TimeUnit.MILLISECONDS))
                    .as("notified")
                    .isTrue();
        }
        assertThat(definite(() -> leases.tryAcquire(NOTIFY_KEY)).orElseThrow().release())
                .isEqualTo(ReleaseResult.RELEASED);
    }

    /**
     * An attempt of the store under test, tried again while its outcome is unknown: its 300 ms request timeout (kept
     * short for the failover cases) ran out once under two busy loops. An unknown attempt holds nothing (its
     * release-if-mine is scheduled), so the next try answers for the same state.
     */
    private static Optional<Lease> definite(Supplier<Optional<Lease>> attempt) {
        for (int i = 0; ; i++) {
            try {
                return attempt.get();
            } catch (LeaseOutcomeUnknownException e) {
                if (i == 4) {
                    throw e;
                }
            }
        }
    }

    /** A wait on {@link #NOTIFY_KEY} subscribes its channel, which then stays subscribed for 30 s. */
    private void subscribeBeforeFailover() {
        leases.acquire(NOTIFY_KEY, Duration.ofSeconds(1), leases.defaults())
                .orElseThrow()
                .release();
        await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> subscribers(group.primary(), store.leaseKeyOf(NOTIFY_KEY)) == 1);
    }

    private long subscribers(ValkeyServer server, String channel) {
        List<?> reply = (List<?>) server.command("PUBSUB", "NUMSUB", channel);
        return (Long) reply.get(1);
    }

    /** Acquires {@code key} and waits until the replica has the lease, so a failover keeps it. */
    private Lease acquireReplicated(String key, LeaseOptions options) {
        Lease lease = leases.tryAcquire(key, options).orElseThrow();
        await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> lease.owner().equals(group.replica().command("GET", store.leaseKeyOf(key))));
        return lease;
    }

    private void assertFailsTypedAndBounded(String key) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> leases.tryAcquire(key)).isInstanceOf(LeaseStoreUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CALL_BOUND);
    }

    /** Retries until a lease on {@code key} is granted, checked on {@code primary} and released; returns when it was granted. */
    private long awaitLeaseOn(ValkeyServer primary, String key, Duration atMost) {
        AtomicLong grantedAt = new AtomicLong();
        await("a lease through the same Leases after the failover")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptionsInstanceOf(LeaseStoreUnavailableException.class)
                .untilAsserted(() -> {
                    Lease lease = leases.tryAcquire(key).orElseThrow(() -> new AssertionError(key + " is held"));
                    grantedAt.compareAndSet(0, System.nanoTime());
                    try {
                        assertThat(primary.command("GET", store.leaseKeyOf(key)))
                                .isEqualTo(lease.owner());
                    } finally {
                        assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
                    }
                });
        return grantedAt.get();
    }

    /**
     * Checks in the background, until closed, that whenever the lease is still valid right after a GET of its key on
     * {@code server}, that GET returned the lease's owner. (Valid after the read means the store's key outlived the
     * read, so a missing or foreign value would be a lease wrongly trusted.)
     */
    private static final class OwnershipMonitor implements AutoCloseable {
        private final List<String> violations = new CopyOnWriteArrayList<>();
        private final AtomicInteger checks = new AtomicInteger();
        private final Thread thread;
        private volatile boolean stopped;

        OwnershipMonitor(Lease lease, ValkeyServer server, String leaseKey) {
            thread = new Thread(
                    () -> {
                        while (!stopped) {
                            check(lease, server, leaseKey);
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                        }
                    },
                    "ownership-monitor");
            thread.setDaemon(true);
            thread.start();
        }

        private void check(Lease lease, ValkeyServer server, String leaseKey) {
            Object holder;
            try {
                holder = server.command(Duration.ofMillis(500), "GET", leaseKey);
            } catch (RuntimeException e) {
                return; // not answering right now: nothing to compare
            }
            if (lease.isValid() && !lease.owner().equals(holder)) {
                violations.add("valid lease " + lease + " while " + server.address() + " had " + holder);
            }
            checks.incrementAndGet();
        }

        List<String> violations() {
            return violations;
        }

        int checks() {
            return checks.get();
        }

        @Override
        public void close() throws InterruptedException {
            stopped = true;
            thread.join(Timing.scaledMillis(5_000));
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
