package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.testkit.CounterFuzzer;
import dev.tenure.testkit.Timing;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Leases} over the JDBC store: mutual exclusion through the engine, and waiters woken by NOTIFY. */
class JdbcLeaseStoreIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(JdbcLeaseStoreIT.class);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void counterFuzzer_twoEnginesOnOneDatabase_noLostIncrements(@TempDir Path dir) throws Exception {
        Path counter = CounterFuzzer.newCounter(dir);
        try (Leases a = Leases.of(Fixture.store(fx.pool));
                Leases b = Leases.of(Fixture.store(fx.pool))) {
            CompletableFuture<Integer> fa = CompletableFuture.supplyAsync(() -> hammer(a, counter));
            CompletableFuture<Integer> fb = CompletableFuture.supplyAsync(() -> hammer(b, counter));
            int made = fa.get(Timing.scaledMillis(120_000), TimeUnit.MILLISECONDS)
                    + fb.get(Timing.scaledMillis(120_000), TimeUnit.MILLISECONDS);
            assertThat(made).isEqualTo(300);
            assertThat(CounterFuzzer.read(counter)).isEqualTo(300);
        }
    }

    private static int hammer(Leases leases, Path counter) {
        try {
            return CounterFuzzer.hammer(leases, "fuzz", counter, 4, 150);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void releaseInOneProcess_wakesWaiterOfAnother_byNotification() throws Exception {
        try (Leases a = Leases.of(Fixture.store(fx.pool));
                Leases b = Leases.of(Fixture.store(fx.pool))) {
            long wakeMillis = handOverMillis(a, b);
            System.out.printf("waiter in another engine acquired %d ms after the release%n", wakeMillis);
            assertThat(wakeMillis).isLessThan(Timing.scaledMillis(1000));
        }
    }

    /** Elections on stores without LISTEN (the knob the database-only election had) still hand over by polling. */
    @Test
    void withoutNotifications_waiterOfAnotherProcess_takesOverByPolling() throws Exception {
        try (Leases a = Leases.of(Fixture.store(fx.pool, Fixture.NO_LISTEN));
                Leases b = Leases.of(Fixture.store(fx.pool, Fixture.NO_LISTEN))) {
            long wakeMillis = handOverMillis(a, b);
            System.out.printf("waiter without notifications acquired %d ms after the release (30 s TTL)%n", wakeMillis);
            assertThat(wakeMillis).isLessThan(Timing.scaledMillis(1500)); // polling: up to its 500 ms back-off cap
        }
    }

    /** {@code a} holds a 30 s lease, {@code b} waits for it; how long after a's release b has it. */
    private static long handOverMillis(Leases a, Leases b) throws Exception {
        String key = "wake-" + UUID.randomUUID();
        Lease held =
                a.tryAcquire(key, LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
        long[] acquiredAt = new long[1];
        CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
            Optional<Lease> l = b.acquire(key, Duration.ofSeconds(20), LeaseOptions.ofTtl(Duration.ofSeconds(5)));
            acquiredAt[0] = System.nanoTime();
            return l;
        });
        Thread.sleep(2500); // the waiter's back-off has grown to its cap (500 ms) by now
        long releasedAt = System.nanoTime();
        held.release();
        Lease next =
                waiter.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS).orElseThrow();
        next.release();
        return TimeUnit.NANOSECONDS.toMillis(acquiredAt[0] - releasedAt);
    }
}
