package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.Leases;
import dev.tenure.ReleaseResult;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The watchdog's database renewal against its own holder's open fenced transactions (DESIGN: "must not deadlock or
 * stall"; issue 10, seam d). Lock modes: the fence check takes FOR KEY SHARE, the renewal (a plain UPDATE of non-key
 * columns) FOR NO KEY UPDATE, which does not conflict with it, and claims and hand-offs FOR UPDATE, which does. So any
 * number of overlapping fenced transactions (parallel chunks) never hold a renewal up, while a new owner's claim still
 * waits for every one of them.
 */
class FenceRenewalIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(FenceRenewalIT.class);
        fx.execute("CREATE TABLE public.work (job_key text, epoch bigint)");
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static String key() {
        return "renew-" + UUID.randomUUID();
    }

    private static void write(Connection tx, String key, long epoch) throws Exception {
        try (PreparedStatement ps = tx.prepareStatement("INSERT INTO public.work VALUES (?, ?)")) {
            ps.setString(1, key);
            ps.setLong(2, epoch);
            ps.executeUpdate();
        }
    }

    private static boolean someoneWaitsForALock() {
        return !fx.query(
                        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
                .isEmpty();
    }

    @Test
    void renew_whileOwnFencedTransactionsAreOpen_doesNotWait() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofSeconds(5))).epoch();
        try (Connection tx1 = fx.connect();
                Connection tx2 = fx.connect()) {
            tx1.setAutoCommit(false);
            tx2.setAutoCommit(false);
            fx.runs.fence(tx1, key, n, "A");
            fx.runs.fence(tx2, key, n, "A");
            long started = System.nanoTime();
            assertThat(fx.leases.renewEpoch(key, n, "A", Duration.ofSeconds(5))).isTrue();
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("renew with two of the holder's fenced transactions open: %d ms%n", took);
            fx.runs.fence(tx1, key, n, "A"); // still the holder after its renewal
            tx1.commit();
            tx2.commit();
        }
    }

    /** Counts renewals and times each one, around the real JDBC store. */
    private static final class TimedRenewals implements LeaseStore {
        private final LeaseStore store;
        final AtomicInteger renewals = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();
        final AtomicLong longestNanos = new AtomicLong();

        TimedRenewals(LeaseStore store) {
            this.store = store;
        }

        @Override
        public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean token) {
            return store.tryAcquire(key, owner, ttl, token);
        }

        @Override
        public CompletableFuture<Boolean> renew(String key, String owner, Duration ttl) {
            long sent = System.nanoTime();
            return store.renew(key, owner, ttl).whenComplete((ok, e) -> {
                longestNanos.accumulateAndGet(System.nanoTime() - sent, Math::max);
                (e == null && ok ? renewals : failures).incrementAndGet();
            });
        }

        @Override
        public CompletableFuture<Boolean> release(String key, String owner) {
            return store.release(key, owner);
        }

        @Override
        public void close() {
            store.close();
        }
    }

    @Test
    void eightOverlappingFencedTransactions_forThreeTtls_leaseStaysActive_andAClaimStillWaitsForThem()
            throws Exception {
        Duration ttl = Duration.ofMillis(1500);
        TimedRenewals store = new TimedRenewals(Fixture.store(fx.pool));
        try (Leases leases = Leases.of(store)) {
            String key = key();
            Lease lease = leases.tryAcquire(key, LeaseOptions.ofTtl(ttl).withFencingToken(true))
                    .orElseThrow();
            long epoch = lease.fencingToken().orElseThrow();
            long until = System.nanoTime() + ttl.multipliedBy(3).toNanos();
            AtomicInteger committed = new AtomicInteger();
            AtomicInteger maxOpen = new AtomicInteger();
            AtomicInteger open = new AtomicInteger();
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(8);
            for (int i = 0; i < 8; i++) {
                workers.add(CompletableFuture.runAsync(
                        () -> {
                            while (System.nanoTime() < until) {
                                try (Connection tx = fx.connect()) {
                                    tx.setAutoCommit(false);
                                    fx.runs.fence(tx, key, epoch, lease.owner());
                                    maxOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
                                    write(tx, key, epoch);
                                    Thread.sleep(ThreadLocalRandom.current().nextLong(50, 300));
                                    open.decrementAndGet();
                                    tx.commit();
                                    committed.incrementAndGet();
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            }
                        },
                        threads));
            }
            try {
                CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new))
                        .get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
            } finally {
                threads.shutdownNow();
            }
            System.out.printf(
                    "8 overlapping fenced transactions for %d ms: %d committed, up to %d open at once; "
                            + "renewals %d (failed %d), longest renewal %d ms; lease %s%n",
                    ttl.multipliedBy(3).toMillis(),
                    committed.get(),
                    maxOpen.get(),
                    store.renewals.get(),
                    store.failures.get(),
                    TimeUnit.NANOSECONDS.toMillis(store.longestNanos.get()),
                    lease.state());
            assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(lease.isValid()).isTrue();
            assertThat(maxOpen.get()).as("the transactions overlapped").isGreaterThanOrEqualTo(4);
            assertThat(store.failures.get())
                    .as("renewals that failed (lock timeouts)")
                    .isZero();
            assertThat(store.renewals.get())
                    .as("renewals every ttl/3 over 3 TTLs")
                    .isGreaterThanOrEqualTo(6);

            // and a new owner's claim still waits for the holder's open fenced transaction
            try (Connection tx = fx.connect()) {
                tx.setAutoCommit(false);
                fx.runs.fence(tx, key, epoch, lease.owner());
                write(tx, key, -epoch);
                assertThat(lease.release())
                        .as("the release does not wait for the open transaction")
                        .isEqualTo(ReleaseResult.RELEASED);
                CompletableFuture<ClaimResult> claim =
                        CompletableFuture.supplyAsync(() -> fx.leases.claim(key, "B", Duration.ofSeconds(5)));
                Awaitility.await()
                        .atMost(Timing.scaled(Duration.ofSeconds(5)))
                        .until(FenceRenewalIT::someoneWaitsForALock);
                Thread.sleep(300);
                assertThat(claim)
                        .as("the claim waits for the open fenced transaction")
                        .isNotDone();
                tx.commit();
                ClaimResult.Claimed b =
                        (ClaimResult.Claimed) claim.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
                assertThat(b.epoch()).isGreaterThan(epoch);
            }
            assertThat(fx.query(
                            "SELECT count(*) FROM public.work WHERE job_key = '" + key + "' AND epoch = " + (-epoch)))
                    .containsExactly("1");
        }
    }

    @Test
    void watchdog_fencedTransactionShorterThanTtl_leaseStaysActive() throws Exception {
        try (Leases leases = Leases.of(Fixture.store(fx.pool))) {
            String key = key();
            Lease lease = leases.tryAcquire(
                            key, LeaseOptions.ofTtl(Duration.ofMillis(2400)).withFencingToken(true))
                    .orElseThrow();
            long epoch = lease.fencingToken().orElseThrow();
            try (Connection tx = fx.connect()) {
                tx.setAutoCommit(false);
                fx.runs.fence(tx, key, epoch, lease.owner());
                write(tx, key, epoch);
                Thread.sleep(1500); // spans the renewal at 800 ms, which does not wait for the fence lock
                fx.runs.fence(tx, key, epoch, lease.owner());
                tx.commit();
            }
            Thread.sleep(1200);
            assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(lease.isValid()).isTrue();
            assertThat(fx.leases.holder(key)).get().extracting(JobHolder::epoch).isEqualTo(epoch);
            assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
        }
    }

    @Test
    void fencedTransactionOutlivingTheLease_writesCommitBeforeTheNextClaim() throws Exception {
        try (Leases a = Leases.of(Fixture.store(fx.pool));
                Leases b = Leases.of(Fixture.store(fx.pool))) {
            String key = key();
            Lease lease = a.tryAcquire(
                            key,
                            LeaseOptions.ofTtl(Duration.ofMillis(600))
                                    .withRenewal(false)
                                    .withFencingToken(true))
                    .orElseThrow();
            long epoch = lease.fencingToken().orElseThrow();
            CompletableFuture<Optional<Lease>> next;
            try (Connection tx = fx.connect()) {
                tx.setAutoCommit(false);
                fx.runs.fence(tx, key, epoch, lease.owner());
                write(tx, key, epoch);
                Awaitility.await()
                        .atMost(Timing.scaled(Duration.ofSeconds(3)))
                        .until(() -> lease.state() == LeaseState.LOST);
                next = CompletableFuture.supplyAsync(() -> b.acquire(
                        key,
                        Duration.ofSeconds(5),
                        LeaseOptions.ofTtl(Duration.ofSeconds(5)).withFencingToken(true)));
                Thread.sleep(300);
                assertThat(next)
                        .as("the next holder waits for the open fenced transaction")
                        .isNotDone();
                tx.commit();
            }
            Lease successor =
                    next.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS).orElseThrow();
            assertThat(successor.fencingToken().orElseThrow()).isGreaterThan(epoch);
            assertThat(fx.query("SELECT epoch FROM public.work WHERE job_key = '" + key + "'"))
                    .containsExactly(Long.toString(epoch));
            successor.release();
        }
    }
}
