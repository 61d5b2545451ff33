package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class LeasesTest {

    private final AtomicLong time = new AtomicLong(1_000_000_000L);
    private final Ticker manual = time::get;
    private Leases leases;

    @AfterEach
    void close() {
        if (leases != null) {
            leases.close();
        }
    }

    private Leases over(FaultyLeaseStore store, Ticker ticker, int maxLocalHandOffs) {
        leases = Leases.builder(store)
                .ticker(ticker)
                .maxLocalHandOffs(maxLocalHandOffs)
                .build();
        return leases;
    }

    /** Many threads increment an unsynchronised counter under one key; returns the counter, asserts no overlap. */
    private int contend(Leases l, int threads, int rounds, LeaseOptions options) throws Exception {
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger timeouts = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            fs.add(pool.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    Optional<Lease> held = l.acquire("hot", Duration.ofSeconds(10), options);
                    if (held.isEmpty()) {
                        timeouts.incrementAndGet();
                        continue;
                    }
                    try (Lease lease = held.get()) {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        int v = counter[0];
                        LockSupport.parkNanos(100_000);
                        counter[0] = v + 1;
                        inside.decrementAndGet();
                    }
                }
            }));
        }
        for (Future<?> f : fs) {
            f.get(Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS);
        }
        pool.shutdown();
        assertThat(overlaps).hasValue(0);
        assertThat(timeouts).hasValue(0);
        return counter[0];
    }

    @Nested
    class MutualExclusion {

        @Test
        void acquire_manyThreadsAtomicHandOff_noLostUpdates() throws Exception {
            Leases l = over(new FaultyLeaseStore(Ticker.system(), true), Ticker.system(), 16);
            assertThat(contend(l, 8, 100, LeaseOptions.ofDefaults())).isEqualTo(800);
        }

        @Test
        void acquire_manyThreadsNonAtomicHandOff_noLostUpdates() throws Exception {
            Leases l = over(new FaultyLeaseStore(Ticker.system(), false), Ticker.system(), 16);
            assertThat(contend(l, 8, 100, LeaseOptions.ofDefaults())).isEqualTo(800);
        }

        @Test
        void earlyHandOff_toAWaiterWithAShorterTtl_itsDeadlineFollowsItsOwnTtl() throws Exception {
            Leases l = over(new FaultyLeaseStore(Ticker.system(), true), Ticker.system(), 16);
            Lease holder = l.tryAcquire("h", LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                    .orElseThrow();
            java.util.concurrent.CompletableFuture<java.util.Optional<Lease>> waiter =
                    java.util.concurrent.CompletableFuture.supplyAsync(
                            () -> l.acquire("h", Duration.ofSeconds(10), LeaseOptions.ofTtl(Duration.ofSeconds(2))));
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .pollDelay(Duration.ofMillis(100))
                    .until(() -> true);
            assertThat(holder.release()).isEqualTo(ReleaseResult.RELEASED);
            Lease next = waiter.get(Timing.scaledMillis(10_000), java.util.concurrent.TimeUnit.MILLISECONDS)
                    .orElseThrow();
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> next.remaining().compareTo(Duration.ofSeconds(2)) <= 0);
            assertThat(next.remaining())
                    .as("not the predecessor's 30 s")
                    .isLessThanOrEqualTo(Duration.ofSeconds(2)); // unscaled: a TTL
            next.release();
        }

        @Test
        void acquire_withoutHandOff_noLostUpdates() throws Exception {
            Leases l = over(new FaultyLeaseStore(Ticker.system(), true), Ticker.system(), 0);
            assertThat(contend(l, 4, 50, LeaseOptions.ofDefaults())).isEqualTo(200);
        }

        @Test
        void acquire_fencingTokensOverHandOffs_strictlyIncrease() throws Exception {
            FaultyLeaseStore store = new FaultyLeaseStore(Ticker.system(), true);
            Leases l = over(store, Ticker.system(), 16);
            List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                fs.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        try (Lease lease = l.acquire(
                                        "tok",
                                        Duration.ofSeconds(10),
                                        LeaseOptions.ofDefaults().withFencingToken(true))
                                .orElseThrow()) {
                            tokens.add(lease.fencingToken().orElseThrow());
                        }
                    }
                }));
            }
            for (Future<?> f : fs) {
                f.get(Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS);
            }
            pool.shutdown();
            assertThat(tokens).hasSize(100).doesNotHaveDuplicates().isSorted();
        }
    }

    @Nested
    class Ownership {

        @Test
        void tryAcquire_heldElsewhere_isEmpty() {
            Leases l = over(new FaultyLeaseStore(Ticker.system()), Ticker.system(), 16);
            Lease first = l.tryAcquire("k").orElseThrow();
            assertThat(l.tryAcquire("k")).isEmpty();
            assertThat(first.release()).isEqualTo(ReleaseResult.RELEASED);
            assertThat(first.release()).isEqualTo(ReleaseResult.ALREADY_RELEASED);
            assertThat(first.state()).isEqualTo(LeaseState.RELEASED);
            assertThat(l.tryAcquire("k")).isPresent();
        }

        @Test
        void release_afterKeyTakenByOther_reportsLostAndKeepsOthersLease() {
            FaultyLeaseStore store = new FaultyLeaseStore(Ticker.system());
            Leases l = over(store, Ticker.system(), 16);
            Lease mine = l.tryAcquire("k").orElseThrow();
            store.takeOver("k", "someone-else", Duration.ofDays(1));
            assertThat(mine.release()).isEqualTo(ReleaseResult.LOST);
            assertThat(mine.state()).isEqualTo(LeaseState.LOST);
            assertThat(store.holder("k")).hasValue("someone-else");
        }

        @Test
        void owners_areUniquePerAcquisition() {
            Leases l = over(new FaultyLeaseStore(Ticker.system()), Ticker.system(), 16);
            Lease a = l.tryAcquire("a").orElseThrow();
            Lease b = l.tryAcquire("b").orElseThrow();
            a.release();
            Lease a2 = l.tryAcquire("a").orElseThrow();
            assertThat(List.of(a.owner(), b.owner(), a2.owner())).doesNotHaveDuplicates();
        }
    }

    @Nested
    class Watchdog {

        @Test
        void renewalRefused_marksLostAndRunsListeners() {
            FaultyLeaseStore store = new FaultyLeaseStore(manual);
            Leases l = over(store, manual, 16);
            Lease lease =
                    l.tryAcquire("w", LeaseOptions.ofTtl(Duration.ofSeconds(3))).orElseThrow();
            AtomicReference<Lease> lostSeen = new AtomicReference<>();
            lease.onLost(lostSeen::set);
            store.expire("w");
            time.addAndGet(Duration.ofSeconds(1).toNanos());
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> lease.state() == LeaseState.LOST);
            assertThat(lostSeen.get()).isSameAs(lease);
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.release()).isEqualTo(ReleaseResult.LOST);
        }

        @Test
        void storeDown_marksLostAtTheLocalDeadlineNotBefore() {
            FaultyLeaseStore store = new FaultyLeaseStore(manual);
            Leases l = over(store, manual, 16);
            LeaseOptions o = LeaseOptions.ofTtl(Duration.ofSeconds(3));
            Lease lease = l.tryAcquire("d", o).orElseThrow();
            store.down.set(true);
            time.addAndGet(Duration.ofSeconds(2).toNanos());
            await().pollDelay(Duration.ofMillis(200))
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> store.calls.get() >= 2);
            assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
            time.addAndGet(Duration.ofSeconds(1).toNanos());
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> lease.state() == LeaseState.LOST);
        }

        @Test
        void renewals_keepLeaseActiveLongPastItsTtl() {
            FaultyLeaseStore store = new FaultyLeaseStore(manual);
            Leases l = over(store, manual, 16);
            Lease lease =
                    l.tryAcquire("r", LeaseOptions.ofTtl(Duration.ofSeconds(3))).orElseThrow();
            for (int i = 0; i < 30; i++) {
                int before = store.calls.get();
                time.addAndGet(Duration.ofMillis(500).toNanos());
                if (i % 2 == 1) {
                    await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                            .until(() -> store.calls.get() > before
                                    || lease.remaining().toMillis() > 2000);
                }
            }
            assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(lease.isValid()).isTrue();
            assertThat(store.holder("r")).hasValue(lease.owner());
        }
    }

    @Nested
    class Faults {

        @Test
        void tryAcquire_storeDown_throwsUnknownOutcomeAndCleansUp() {
            FaultyLeaseStore store = new FaultyLeaseStore(Ticker.system());
            Leases l = over(store, Ticker.system(), 16);
            store.down.set(true);
            assertThatThrownBy(() -> l.tryAcquire("x"))
                    .isInstanceOf(LeaseOutcomeUnknownException.class)
                    .isInstanceOf(LeaseStoreUnavailableException.class)
                    .hasMessageContaining("'x'");
            int before = store.calls.get();
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> store.calls.get() > before + 1);
        }

        @Test
        void acquireAll_oneKeyHeld_releasesEverythingTaken() {
            FaultyLeaseStore store = new FaultyLeaseStore(Ticker.system());
            Leases l = over(store, Ticker.system(), 16);
            Lease other = l.tryAcquire("c").orElseThrow();
            assertThat(l.acquireAll(List.of("d", "b", "a", "c"), Duration.ofMillis(50), l.defaults()))
                    .isEmpty();
            assertThat(store.heldKeys()).containsExactly("c");
            other.release();
            try (LeaseGroup g = l.acquireAll(List.of("d", "b", "a", "c"), Duration.ZERO, l.defaults())
                    .orElseThrow()) {
                assertThat(g.leases()).extracting(Lease::key).containsExactly("a", "b", "c", "d");
            }
            assertThat(store.heldKeys()).isEmpty();
        }
    }

    @Nested
    class Facade {

        @Test
        void runLocked_releasesInFinallyEvenWhenWorkThrows() {
            FaultyLeaseStore store = new FaultyLeaseStore(Ticker.system());
            Leases l = over(store, Ticker.system(), 16);
            assertThatThrownBy(() -> l.runLocked("p", LockPolicy.failFast(), lease -> {
                        throw new IllegalStateException("boom");
                    }))
                    .hasMessage("boom");
            assertThat(store.heldKeys()).isEmpty();
            assertThat(l.runLocked("p", LockPolicy.failFast(), lease -> lease.key() + "!"))
                    .contains("p!");
        }

        @Test
        void runLocked_failFastWhenHeld_isEmptyAndDoesNotRun() {
            Leases l = over(new FaultyLeaseStore(Ticker.system()), Ticker.system(), 16);
            Lease holder = l.tryAcquire("p").orElseThrow();
            AtomicInteger ran = new AtomicInteger();
            assertThat(l.runLocked("p", LockPolicy.failFast(), lease -> ran.incrementAndGet()))
                    .isEmpty();
            assertThat(l.runLocked("p", LockPolicy.waitUpTo(Duration.ofMillis(30)), lease -> ran.incrementAndGet()))
                    .isEmpty();
            assertThat(ran).hasValue(0);
            holder.release();
        }

        @Test
        void acquire_withTtl_waitsForRelease() throws Exception {
            Leases l = over(new FaultyLeaseStore(Ticker.system()), Ticker.system(), 16);
            Lease holder = l.tryAcquire("coupon-1").orElseThrow();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            Future<Optional<Lease>> waiting =
                    pool.submit(() -> l.acquire("coupon-1", Duration.ofSeconds(5), Duration.ofSeconds(3)));
            Thread.sleep(50);
            holder.release();
            try (Lease got = waiting.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS)
                    .orElseThrow()) {
                assertThat(got.isValid()).isTrue();
            }
            pool.shutdown();
        }
    }
}
