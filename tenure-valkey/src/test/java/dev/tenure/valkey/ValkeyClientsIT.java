package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.ReleaseResult;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ValkeyConfig.Builder#clients(int)}: several GLIDE clients per store give the same mutual-exclusion answers as
 * one, open one connection each (with the configured client name) and leave none after close.
 */
class ValkeyClientsIT {

    private static final int THREADS = 16;
    private static final int ROUNDS = 150;

    private static ValkeyServer valkey;

    @BeforeAll
    static void start() {
        valkey = ValkeyServers.standalone();
    }

    @AfterAll
    static void stop() {
        if (valkey != null) {
            valkey.close();
        }
    }

    private static Leases leases(int clients, String name) {
        return Leases.of(ValkeyLeaseStore.create(ValkeyConfig.standalone(valkey.address())
                .clients(clients)
                .clientName(name)
                .namespace(name)
                .build()));
    }

    /**
     * Each thread takes keys of its own: every attempt on a free key is granted, and a second attempt while it is held
     * is refused, with one client as with four.
     */
    @ParameterizedTest(name = "clients({0})")
    @ValueSource(ints = {1, 4})
    void distinctKeys_manyThreads_everyFreeKeyGrantedEveryHeldKeyRefused(int clients) throws Exception {
        try (Leases leases = leases(clients, "distinct-c" + clients)) {
            List<int[]> counts = run(t -> {
                int granted = 0;
                int refused = 0;
                for (int i = 0; i < ROUNDS; i++) {
                    String key = "k-" + t + "-" + (i % 8);
                    Optional<Lease> lease = leases.tryAcquire(key);
                    if (lease.isPresent()) {
                        granted++;
                        refused += leases.tryAcquire(key).isEmpty() ? 1 : 0;
                        assertThat(lease.get().release()).isEqualTo(ReleaseResult.RELEASED);
                    }
                }
                return new int[] {granted, refused};
            });
            for (int[] c : counts) {
                assertThat(c).as("granted, refused while held").containsExactly(ROUNDS, ROUNDS);
            }
        }
    }

    /**
     * Two stores on the same keys, one with {@code clients} clients and one with a single client, each with 8 threads
     * that wait for 4 shared keys: no two sections of a key ever overlap, and every wait ends with the key.
     */
    @ParameterizedTest(name = "clients({0}) against clients(1)")
    @ValueSource(ints = {1, 4})
    void sharedKeys_twoStoresManyThreads_noOverlapAndEveryWaitGranted(int clients) throws Exception {
        String ns = "shared-c" + clients;
        Inside inside = new Inside();
        AtomicInteger overlaps = new AtomicInteger();
        try (Leases many = leases(clients, ns);
                Leases one = leases(1, ns)) {
            List<int[]> counts = run(t -> {
                Leases leases = t % 2 == 0 ? many : one;
                int sections = 0;
                for (int i = 0; i < ROUNDS / 3; i++) {
                    String key = "shared-" + ((t + i) % 4);
                    Optional<Lease> lease =
                            leases.acquire(key, Timing.scaled(Duration.ofSeconds(10)), leases.defaults());
                    if (lease.isEmpty()) {
                        continue;
                    }
                    if (inside.of(key).incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    LockSupport.parkNanos(20_000); // a section long enough for an overlap to show
                    inside.of(key).decrementAndGet();
                    sections++;
                    assertThat(lease.get().release()).isEqualTo(ReleaseResult.RELEASED);
                }
                return new int[] {sections};
            });
            assertThat(overlaps.get()).as("sections of one key that overlapped").isZero();
            assertThat(counts)
                    .allSatisfy(c ->
                            assertThat(c[0]).as("waits that ended with the key").isEqualTo(ROUNDS / 3));
        }
    }

    @Test
    void clientList_fourClients_fourNamedConnectionsPlusTheNotifiersThenNoneAfterClose() throws Exception {
        String name = "conns-c4";
        try (Leases leases = leases(4, name)) {
            for (int i = 0; i < 64; i++) { // connections are made lazily: 64 keys reach every client
                assertThat(leases.tryAcquire("conn-" + i).orElseThrow().release())
                        .isEqualTo(ReleaseResult.RELEASED);
            }
            assertThat(named(name))
                    .as("one connection per client, before any wait")
                    .isEqualTo(4);

            Lease held = leases.tryAcquire("waited").orElseThrow();
            assertThat(leases.acquire("waited", Duration.ofMillis(200), LeaseOptions.ofTtl(Duration.ofSeconds(5))))
                    .isEmpty();
            await("the release notifier's connection")
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> named(name) == 5);
            assertThat(held.release()).isEqualTo(ReleaseResult.RELEASED);
        }
        await("every connection closed")
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> named(name) == 0);
    }

    /** Connections on {@code server} whose CLIENT SETNAME is {@code name}, except those whose last command was {@code except}. */
    static long named(ValkeyServer server, String name, String except) {
        String list = (String) server.command("CLIENT", "LIST");
        return Arrays.stream(list.split("\n"))
                .filter(l -> l.contains(" name=" + name + " ") && !l.contains(" cmd=" + except + " "))
                .count();
    }

    private static long named(String name) {
        return named(valkey, name, "");
    }

    private interface Work {
        int[] run(int thread) throws Exception;
    }

    /** Runs {@code work} on {@link #THREADS} threads at once; each thread's result, in order. */
    private static List<int[]> run(Work work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<int[]>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                futures.add(pool.submit(() -> work.run(thread)));
            }
            List<int[]> results = new ArrayList<>();
            for (Future<int[]> f : futures) {
                results.add(f.get(Timing.scaledMillis(120_000), TimeUnit.MILLISECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** A counter per key: how many threads are inside its section. */
    private static final class Inside {
        private final ConcurrentHashMap<String, AtomicInteger> counters = new ConcurrentHashMap<>();

        AtomicInteger of(String key) {
            return counters.computeIfAbsent(key, k -> new AtomicInteger());
        }
    }
}
