package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.memory.InMemoryRunLedger;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link JobCoordinator#close()}: no new runs, a drain for the runs in progress, then the rest abandoned. */
class CoordinatorCloseTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore(Ticker.system());
    private final InMemoryRunLedger ledger = new InMemoryRunLedger(store);
    private final Leases database = Leases.of(store);
    private final ExecutorService worker = Executors.newSingleThreadExecutor();
    private final CountDownLatch began = new CountDownLatch(1);
    private final CountDownLatch proceed = new CountDownLatch(1);
    private final AtomicBoolean cancelledWhenWoken = new AtomicBoolean();

    @AfterEach
    void close() throws InterruptedException {
        proceed.countDown();
        worker.shutdownNow();
        assertThat(worker.awaitTermination(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                .isTrue();
        database.close();
    }

    private JobCoordinator coordinator(Duration drain) {
        return new JobCoordinator(
                Tenure.builder().drainTimeout(drain).settings(),
                database,
                null,
                ledger,
                dev.tenure.metrics.RunMetrics.none());
    }

    private Future<RunOutcome<String>> blockedRun(JobCoordinator c) throws InterruptedException {
        Future<RunOutcome<String>> run = worker.submit(() -> c.run("job", "f1", RunPolicy.skipFire(), ctx -> {
            began.countDown();
            proceed.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
            cancelledWhenWoken.set(ctx.isCancelled());
            return "done";
        }));
        assertThat(began.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                .isTrue();
        return run;
    }

    @Test
    void close_runEndsWithinTheDrain_closeWaitsForIt_andTheRunIsRecordedAsUsual() throws Exception {
        JobCoordinator c = coordinator(Duration.ofSeconds(10));
        Future<RunOutcome<String>> run = blockedRun(c);
        Thread closer = new Thread(c::close);
        closer.start();
        closer.join(200); // unscaled: a lower bound (close() is still waiting after 200 ms)
        assertThat(closer.isAlive()).as("close() waits for the run").isTrue();
        assertThatThrownBy(() -> c.run("job", "f2", RunPolicy.skipFire(), ctx -> null))
                .as("no new run while it waits")
                .isInstanceOf(IllegalStateException.class);
        proceed.countDown();
        closer.join(Timing.scaledMillis(5000));
        assertThat(closer.isAlive()).isFalse();
        RunOutcome<String> o = run.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
        assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(o.result()).isEqualTo("done");
        assertThat(ledger.statusOf("job", "f1")).contains("COMPLETED");
        assertThat(ledger.holder("job")).isEmpty();
    }

    @Test
    void close_runOutlastsTheDrain_isAbandonedForShutdown_itsLeaseFreed_andItsLateFinishIsTheAbandonment()
            throws Exception {
        JobCoordinator c = coordinator(Duration.ofMillis(100));
        Future<RunOutcome<String>> run = blockedRun(c);
        long t = System.nanoTime();
        c.close();
        long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
        assertThat(closeMillis)
                .isBetween(100L, Timing.scaledMillis(3000)); // unscaled: 100 ms, the drain, is a lower bound
        assertThat(ledger.statusOf("job", "f1")).contains("ABANDONED");
        assertThat(ledger.holder("job")).as("the job's lease").isEmpty();
        proceed.countDown();
        RunOutcome<String> o = run.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
        assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
        assertThat(o.error()).isInstanceOf(LeaseLostException.class).hasMessageContaining("shutdown");
        assertThat(cancelledWhenWoken).as("the work sees it is cancelled").isTrue();
        assertThat(ledger.statusOf("job", "f1"))
                .as("its late finish changes nothing")
                .contains("ABANDONED");
    }

    @Test
    void drainTimeout_negative_refused() {
        assertThatThrownBy(() -> Tenure.builder().drainTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("drainTimeout");
    }
}
