package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.memory.InMemoryRunLedger;
import dev.tenure.spi.AcquireResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Valkey lease of a run is a filter, the database lease the authority (issue 22, items 3, 4 and 8): losing the
 * filter does not cancel a run; losing the database lease gives the filter back at once, off the watchdog thread; an
 * interrupted Valkey acquire is the caller's doing and does not open the fallback breaker.
 */
class ValkeyFilterTest {

    private static final LeaseOptions SHORT = LeaseOptions.ofTtl(Duration.ofMillis(600));

    private final FaultyLeaseStore valkeyStore = new FaultyLeaseStore(Ticker.system(), true);
    private final FaultyLeaseStore dbStore = new FaultyLeaseStore(Ticker.system());
    private final InMemoryRunLedger ledger = new InMemoryRunLedger(dbStore);
    private final Leases database = Leases.of(dbStore);
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private Leases valkey = Leases.of(valkeyStore);

    @AfterEach
    void close() {
        pool.shutdownNow();
        valkey.close();
        database.close();
    }

    private JobCoordinator coordinator(JobCoordinator.Mode mode) {
        return new JobCoordinator(
                Tenure.builder().mode(mode).leaseDefaults(SHORT).settings(),
                database,
                valkey,
                ledger,
                dev.tenure.metrics.RunMetrics.none());
    }

    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY", "VALKEY_WITH_DATABASE_FALLBACK"})
    void valkeyLeaseLost_whileTheDatabaseLeaseHolds_theRunIsNotCancelled_andCompletes(JobCoordinator.Mode mode) {
        JobCoordinator c = coordinator(mode);
        AtomicBoolean cancelledSeen = new AtomicBoolean();
        AtomicBoolean callbackRan = new AtomicBoolean();
        RunOutcome<String> o = c.run("job", "f", RunPolicy.skipFire(), ctx -> {
            ((ActiveRun) ctx).onCancelled(() -> callbackRan.set(true));
            valkeyStore.down.set(true); // Valkey stops answering: its lease runs out locally after one TTL
            long end = System.nanoTime() + SHORT.ttl().multipliedBy(3).toNanos();
            while (System.nanoTime() < end) {
                cancelledSeen.compareAndSet(false, ctx.isCancelled() || !ctx.isLeaseValid());
                Thread.sleep(10);
            }
            return "done";
        });
        assertThat(cancelledSeen)
                .as("isCancelled() or !isLeaseValid() seen while the database lease held")
                .isFalse();
        assertThat(callbackRan).as("onCancelled callback").isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(ledger.statusOf("job", "f")).hasValue("COMPLETED");
    }

    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY", "VALKEY_WITH_DATABASE_FALLBACK"})
    void databaseLeaseLost_theValkeyLeaseIsGivenBack_whileTheWorkStillRuns(JobCoordinator.Mode mode) throws Exception {
        JobCoordinator c = coordinator(mode);
        CountDownLatch lost = new CountDownLatch(1);
        CountDownLatch freed = new CountDownLatch(1);
        Future<RunOutcome<String>> run = pool.submit(() -> c.run("stuck", "f", RunPolicy.skipFire(), ctx -> {
            dbStore.takeOver("stuck", "operator", Duration.ofSeconds(30)); // as a force-release does
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(ctx::isCancelled);
            lost.countDown();
            freed.await(
                    Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS); // a stuck holder: its work does not return yet
            return "late";
        }));
        assertThat(lost.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                .isTrue();
        await("the Valkey lease given back while the work still runs")
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> valkeyStore.heldKeys().isEmpty());
        freed.countDown();
        assertThat(run.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS).status())
                .isEqualTo(RunOutcome.Status.LEASE_LOST);
    }

    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY", "VALKEY_WITH_DATABASE_FALLBACK"})
    void valkeyAcquireInterrupted_isNotAValkeyFailure_andRunsNothing(JobCoordinator.Mode mode) throws Exception {
        CountDownLatch sent = new CountDownLatch(2);
        DelegatingLeaseStore hanging = new DelegatingLeaseStore(valkeyStore) {
            @Override
            public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean token) {
                sent.countDown();
                return new CompletableFuture<>(); // Valkey is slow: the answer is still on its way
            }
        };
        valkey.close();
        valkey = Leases.of(hanging);
        JobCoordinator c = coordinator(mode);
        AtomicBoolean ran = new AtomicBoolean();
        for (int i = 0; i < 2; i++) {
            String fire = "f" + i;
            AtomicReference<Thread> runner = new AtomicReference<>();
            long before = sent.getCount();
            Future<Boolean> call = pool.submit(() -> {
                runner.set(Thread.currentThread());
                try {
                    RunOutcome<Object> o = c.run("job", fire, RunPolicy.skipFire(), ctx -> {
                        ran.set(true);
                        return null;
                    });
                    assertThat(o.status()).isEqualTo(RunOutcome.Status.SKIPPED_HELD_ELSEWHERE);
                } catch (LeaseStoreUnavailableException e) {
                    // VALKEY mode may report it; it must not count either way
                }
                return Thread.interrupted();
            });
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> sent.getCount() < before);
            runner.get().interrupt();
            assertThat(call.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                    .as("the interrupt flag is kept")
                    .isTrue();
        }
        assertThat(ran).as("work ran after an interrupted acquire").isFalse();
        assertThat(c.fallbacks()).as("breaker openings").isZero();
        assertThat(c.inFallback()).isFalse();
    }
}
