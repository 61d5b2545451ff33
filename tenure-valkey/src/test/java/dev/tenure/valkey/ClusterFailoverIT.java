package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.Lease;
import dev.tenure.LeaseGroup;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.Leases;
import dev.tenure.ReleaseResult;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyCluster;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases on a 3-primary / 3-replica cluster, with keys chosen so that every shard holds some (acceptance 5): they are
 * exclusive and released on every shard; after kill -9 of one primary, operations on its slots fail with a typed
 * {@link LeaseStoreUnavailableException} within a bound (never hang), and once a replica took over, leases work on
 * every shard again through the same {@link Leases}, including an all-or-nothing {@code acquireAll} across shards.
 *
 * <p>The methods run in order: the last one kills a primary.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterFailoverIT {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterFailoverIT.class);
    private static final int KEYS_PER_SHARD = 3;
    private static final Duration CALL_BOUND = Timing.scaled(Duration.ofSeconds(5));

    private static ValkeyCluster cluster;
    private static ValkeyLeaseStore store;
    private static Leases leases;
    /** A second client, as another process would have: it must never get a key {@link #leases} holds. */
    private static Leases elsewhere;
    /** Job keys grouped by the primary serving their lease key's slot at start-up. */
    private static Map<ValkeyServer, List<String>> keysByShard;

    @BeforeAll
    static void start() {
        cluster = ValkeyServers.cluster();
        store = ValkeyLeaseStore.create(config());
        leases = Leases.of(store);
        elsewhere = Leases.of(ValkeyLeaseStore.create(config()));
        keysByShard = keysOnEveryShard();
        warmUp(leases);
        warmUp(elsewhere);
    }

    /**
     * Until both clients' first calls have gone through on every shard (connections, topology, script loading): on a
     * loaded 2-core machine the first call to a fresh cluster can outlast the 500 ms request timeout. Uses keys of its
     * own, so an unknown outcome here cannot leave a test's key held.
     */
    private static void warmUp(Leases client) {
        for (int i = 0; i < 30; i++) {
            String key = "warm-up-" + i;
            await().atMost(Timing.scaled(Duration.ofSeconds(30)))
                    .ignoreExceptionsInstanceOf(LeaseStoreUnavailableException.class)
                    .until(() -> {
                        Optional<Lease> lease = client.tryAcquire(key, LeaseOptions.ofTtl(Duration.ofSeconds(2)));
                        lease.ifPresent(Lease::release);
                        return lease.isPresent();
                    });
        }
    }

    @AfterAll
    static void stop() {
        if (leases != null) {
            leases.close();
        }
        if (elsewhere != null) {
            elsewhere.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static ValkeyConfig config() {
        return ValkeyConfig.cluster(cluster.seedAddresses().toArray(String[]::new))
                .requestTimeout(Duration.ofMillis(500))
                .connectionTimeout(Duration.ofSeconds(1))
                .build();
    }

    @Test
    @Order(1)
    void tryAcquire_keysOnAllThreeShards_exclusiveUntilReleased() {
        assertThat(keysByShard).hasSize(3);
        List<Lease> held = new ArrayList<>();
        for (String key : allKeys()) {
            held.add(leases.tryAcquire(key).orElseThrow(() -> new AssertionError(key + " was not granted")));
        }

        for (String key : allKeys()) {
            assertThat(elsewhere.tryAcquire(key))
                    .as("second client on held key %s", key)
                    .isEmpty();
        }
        for (Lease lease : held) {
            assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
        }
        for (String key : allKeys()) {
            assertThat(elsewhere.tryAcquire(key))
                    .as("second client on released key %s", key)
                    .get()
                    .satisfies(lease -> assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED));
        }
    }

    @Test
    @Order(2)
    void acquireAll_keysSpanningThreeShards_allOrNothing() {
        List<String> spanning = onePerShard();
        LeaseGroup group = leases.acquireAll(spanning, Duration.ofSeconds(1), leases.defaults())
                .orElseThrow();
        assertThat(group.leases()).hasSize(3).allMatch(Lease::isValid);
        spanning.forEach(key -> assertThat(elsewhere.tryAcquire(key)).isEmpty());
        assertThat(group.release()).isEqualTo(ReleaseResult.RELEASED);

        Lease blocker = elsewhere.tryAcquire(spanning.get(2)).orElseThrow();
        assertThat(leases.acquireAll(spanning, Duration.ofMillis(300), leases.defaults()))
                .isEmpty();
        assertThat(blocker.release()).isEqualTo(ReleaseResult.RELEASED);
        spanning.forEach(key -> assertThat(elsewhere.tryAcquire(key))
                .as("left behind: %s", key)
                .get()
                .satisfies(lease -> assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED)));
    }

    @Test
    @Order(3)
    void leases_primaryKilled_failTypedUntilReplicaTakesOverThenWorkOnAllShards() throws Exception {
        ValkeyServer victim = keysByShard.keySet().iterator().next();
        List<String> victimKeys = keysByShard.get(victim);
        Lease kept = leases.tryAcquire(victimKeys.get(0)).orElseThrow();
        Lease releasedDuringOutage = leases.tryAcquire(victimKeys.get(1), LeaseOptions.ofTtl(Duration.ofSeconds(60)))
                .orElseThrow();
        awaitReplicated(victim, kept, releasedDuringOutage);

        long killedAt = System.nanoTime();
        victim.kill();
        AtomicLong promotedAt = new AtomicLong();
        CompletableFuture<ValkeyServer> failover = CompletableFuture.supplyAsync(() -> {
            ValkeyServer replica = cluster.awaitFailover(victim, Timing.scaled(Duration.ofSeconds(20)));
            promotedAt.set(System.nanoTime());
            return replica;
        });
        assertThat(timed(releasedDuringOutage::release)).isEqualTo(ReleaseResult.UNCONFIRMED);
        Outage outage = tryUntilGranted(victimKeys.get(2), Timing.scaled(Duration.ofSeconds(20)));
        ValkeyServer promoted =
                failover.get(Timing.scaled(Duration.ofSeconds(25)).toMillis(), TimeUnit.MILLISECONDS);

        assertThat(outage.typedFailures.get())
                .as("calls failing while the slot had no primary")
                .isPositive();
        assertThat(promoted).isNotSameAs(victim).isSameAs(cluster.primaryForKey(store.leaseKeyOf(victimKeys.get(2))));
        LOG.info(
                "cluster failover: {} typed failures; first lease on the failed shard {} ms after kill -9; the kit saw "
                        + "the promotion (every node cluster_state:ok) {} ms after kill -9",
                outage.typedFailures.get(),
                millis(outage.grantedAt - killedAt),
                millis(promotedAt.get() - killedAt));

        assertHeldOnlyByOwner(kept, promoted);
        List<String> free = allKeys();
        free.removeAll(List.of(kept.key(), releasedDuringOutage.key()));
        long allShardsAt = awaitLeasesOn(free, Timing.scaled(Duration.ofSeconds(20)));
        LOG.info("cluster failover: leases work on all shards {} ms after kill -9", millis(allShardsAt - killedAt));
        awaitFreed(releasedDuringOutage.key());
        assertThat(kept.release()).isIn(ReleaseResult.RELEASED, ReleaseResult.LOST);
        awaitAcquireAllAcrossShards(Timing.scaled(Duration.ofSeconds(20)));
    }

    /** Keys until every primary serves {@value #KEYS_PER_SHARD} of them. */
    private static Map<ValkeyServer, List<String>> keysOnEveryShard() {
        Map<ValkeyServer, List<String>> byShard = new LinkedHashMap<>();
        for (int i = 0; byShard.values().stream().mapToInt(List::size).sum() < 3 * KEYS_PER_SHARD; i++) {
            String key = "job-" + i;
            int slot = ValkeyCluster.slotOf(store.leaseKeyOf(key));
            List<String> keys = byShard.computeIfAbsent(cluster.primaryForSlot(slot), p -> new ArrayList<>());
            if (keys.size() < KEYS_PER_SHARD) {
                keys.add(key);
            }
        }
        return byShard;
    }

    private static List<String> allKeys() {
        return keysByShard.values().stream().flatMap(List::stream).collect(Collectors.toList());
    }

    private static List<String> onePerShard() {
        return keysByShard.values().stream().map(keys -> keys.get(0)).collect(Collectors.toList());
    }

    private static void awaitReplicated(ValkeyServer primary, Lease... held) {
        ValkeyServer replica = cluster.replicaOf(primary);
        for (Lease lease : held) {
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> lease.owner()
                            .equals(replica.pipeline(
                                            List.of(List.of("READONLY"), List.of("GET", store.leaseKeyOf(lease.key()))))
                                    .get(1)));
        }
    }

    /** Runs {@code call}, failing the test if it takes longer than {@link #CALL_BOUND}, whether it returns or throws. */
    private static <T> T timed(Supplier<T> call) {
        long start = System.nanoTime();
        try {
            return call.get();
        } finally {
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            if (took.compareTo(CALL_BOUND) > 0) {
                throw new AssertionError("a lease call took " + took + ", more than " + CALL_BOUND);
            }
        }
    }

    /** What happened to calls on a key of the killed primary until one was granted. */
    private static final class Outage {
        final AtomicInteger typedFailures = new AtomicInteger();
        volatile long grantedAt;
    }

    /**
     * Tries {@code key} until it is granted (then releases it). Every call must return within the bound, with a lease,
     * an empty result (an earlier call whose outcome was unknown may hold the key until Tenure's clean-up releases it)
     * or a {@link LeaseStoreUnavailableException}; anything else fails the test.
     */
    private static Outage tryUntilGranted(String key, Duration atMost) {
        Outage outage = new Outage();
        await("a lease on the failed shard")
                .atMost(atMost)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    Optional<Lease> lease;
                    try {
                        lease = timed(() -> leases.tryAcquire(key));
                    } catch (LeaseStoreUnavailableException e) {
                        outage.typedFailures.incrementAndGet();
                        return false;
                    }
                    lease.ifPresent(granted -> {
                        outage.grantedAt = System.nanoTime();
                        assertThat(granted.release()).isEqualTo(ReleaseResult.RELEASED);
                    });
                    return lease.isPresent();
                });
        return outage;
    }

    /**
     * Every one of {@code keys}: granted, exclusive, released. Keys on healthy shards may still time out while the
     * cluster reports {@code cluster_state:fail}, so failures are retried.
     */
    private static long awaitLeasesOn(List<String> keys, Duration atMost) {
        await("leases on every shard")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsInstanceOf(LeaseStoreUnavailableException.class)
                .untilAsserted(() -> keys.forEach(ClusterFailoverIT::assertExclusiveAndReleased));
        return System.nanoTime();
    }

    private static void assertExclusiveAndReleased(String key) {
        Lease lease = timed(() -> leases.tryAcquire(key)).orElseThrow(() -> new AssertionError(key + " is held"));
        try {
            assertThat(timed(() -> elsewhere.tryAcquire(key)))
                    .as("second client on %s", key)
                    .isEmpty();
        } finally {
            assertThat(timed(lease::release)).isEqualTo(ReleaseResult.RELEASED);
        }
    }

    private static void awaitAcquireAllAcrossShards(Duration atMost) {
        List<String> spanning = onePerShard();
        await("acquireAll across the shards")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsInstanceOf(LeaseStoreUnavailableException.class)
                .untilAsserted(() -> {
                    LeaseGroup group = leases.acquireAll(spanning, Duration.ofSeconds(1), leases.defaults())
                            .orElseThrow(() -> new AssertionError("acquireAll " + spanning + " timed out"));
                    try {
                        spanning.forEach(
                                key -> assertThat(elsewhere.tryAcquire(key)).isEmpty());
                    } finally {
                        assertThat(group.release()).isEqualTo(ReleaseResult.RELEASED);
                    }
                });
    }

    /**
     * The lease kept through the failover (its key had reached the replica): if it still says valid, the promoted
     * replica holds it for its owner and nobody else gets it.
     */
    private static void assertHeldOnlyByOwner(Lease kept, ValkeyServer promoted) {
        Object holder = promoted.command("GET", store.leaseKeyOf(kept.key()));
        if (kept.isValid()) {
            assertThat(holder).isEqualTo(kept.owner());
            await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptionsInstanceOf(LeaseStoreUnavailableException.class)
                    .untilAsserted(
                            () -> assertThat(elsewhere.tryAcquire(kept.key())).isEmpty());
        }
        LOG.info("cluster failover: the lease held across the failover is {}", kept.state());
    }

    /** A release that could not be confirmed during the outage is retried in the background until it succeeds. */
    private static void awaitFreed(String key) {
        await("the release retried after the outage")
                .atMost(Timing.scaled(Duration.ofSeconds(10)))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsInstanceOf(LeaseStoreUnavailableException.class)
                .untilAsserted(() -> assertThat(elsewhere.tryAcquire(key))
                        .get()
                        .satisfies(lease -> assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED)));
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
