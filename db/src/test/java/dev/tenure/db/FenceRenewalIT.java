package dev.tenure.db;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.Leases;
import dev.tenure.ReleaseResult;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The watchdog's database renewal against its own holder's open fenced transaction (DESIGN: "must not deadlock or
 * stall"). Decision: the fence check takes FOR SHARE and does not extend the lease; the renewal runs with a short
 * lock timeout (250 ms by default), fails typed when the row is locked, and is retried by the watchdog.
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

    @Test
    void renew_whileOwnFencedTransactionIsOpen_failsFastWithLockTimeout_thenSucceeds() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) fx.ledger.claim(key, "A", Duration.ofSeconds(5))).epoch();
        try (Connection tx = fx.connect()) {
            tx.setAutoCommit(false);
            fx.ledger.fence(tx, key, n);
            long started = System.nanoTime();
            assertThatThrownBy(() -> fx.ledger.renew(key, n, Duration.ofSeconds(5)))
                    .isInstanceOfSatisfying(LedgerUnavailableException.class, e -> {
                        assertThat(e.sqlState()).isEqualTo("55P03");
                        assertThat(e.outcomeUnknown()).isFalse();
                    });
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("renew against the holder's own fence lock: 55P03 after %d ms (renew lock timeout 250 ms)%n", took);
            assertThat(took).isLessThan(1000);
            assertThat(fx.ledger.holder(key)).get().extracting(JobHolder::owner).isEqualTo("A");
            tx.commit();
        }
        assertThat(fx.ledger.renew(key, n, Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void watchdog_fencedTransactionShorterThanTtl_leaseStaysActive() throws Exception {
        try (Leases leases = Leases.of(JdbcLeaseStore.create(fx.pool))) {
            String key = key();
            Lease lease = leases.tryAcquire(key, LeaseOptions.ofTtl(Duration.ofMillis(2400)).withFencingToken(true)).orElseThrow();
            long epoch = lease.fencingToken().orElseThrow();
            try (Connection tx = fx.connect()) {
                tx.setAutoCommit(false);
                fx.ledger.fence(tx, key, epoch);
                write(tx, key, epoch);
                Thread.sleep(1500);   // spans the renewal at 800 ms: it meets the row lock and is retried
                fx.ledger.fence(tx, key, epoch);
                tx.commit();
            }
            Thread.sleep(1200);       // renewals after the commit extend it again
            assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(lease.isValid()).isTrue();
            assertThat(fx.ledger.holder(key)).get().extracting(JobHolder::epoch).isEqualTo(epoch);
            assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
        }
    }

    @Test
    void watchdog_fencedTransactionLongerThanTtl_leaseLostLocally_writesCommitBeforeTheNextClaim() throws Exception {
        try (Leases a = Leases.of(JdbcLeaseStore.create(fx.pool)); Leases b = Leases.of(JdbcLeaseStore.create(fx.pool))) {
            String key = key();
            Lease lease = a.tryAcquire(key, LeaseOptions.ofTtl(Duration.ofMillis(600)).withFencingToken(true)).orElseThrow();
            long epoch = lease.fencingToken().orElseThrow();
            CompletableFuture<Optional<Lease>> next;
            try (Connection tx = fx.connect()) {
                tx.setAutoCommit(false);
                fx.ledger.fence(tx, key, epoch);
                write(tx, key, epoch);
                Awaitility.await().atMost(Duration.ofSeconds(3)).until(() -> lease.state() == LeaseState.LOST);
                next = CompletableFuture.supplyAsync(() -> b.acquire(key, Duration.ofSeconds(5),
                        LeaseOptions.ofTtl(Duration.ofSeconds(5)).withFencingToken(true)));
                Thread.sleep(300);
                assertThat(next).as("the next holder waits for the open fenced transaction").isNotDone();
                tx.commit();
            }
            Lease successor = next.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(successor.fencingToken().orElseThrow()).isEqualTo(epoch + 1);
            assertThat(fx.query("SELECT epoch FROM public.work WHERE job_key = '" + key + "'")).containsExactly(Long.toString(epoch));
            successor.release();
        }
    }
}
