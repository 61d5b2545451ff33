package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.integration.RunClaim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JobCoordinatorTest {

    private final FaultyLeaseStore valkeyStore = new FaultyLeaseStore(Ticker.system(), true);
    private final FaultyLeaseStore dbStore = new FaultyLeaseStore(Ticker.system());
    private final dev.tenure.memory.InMemoryRunLedger ledger = new dev.tenure.memory.InMemoryRunLedger(dbStore);
    private final Leases valkey = Leases.of(valkeyStore);
    private final Leases database = Leases.of(dbStore);

    @AfterEach
    void close() {
        valkey.close();
        database.close();
    }

    private JobCoordinator coordinator(JobCoordinator.Mode mode) {
        return new JobCoordinator(
                Tenure.builder().mode(mode).settings(), database, valkey, ledger, dev.tenure.metrics.RunMetrics.none());
    }

    @Test
    void run_manyThreadsSameFires_eachFireExecutedOnce() throws Exception {
        JobCoordinator c = coordinator(JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK);
        ConcurrentHashMap<String, AtomicInteger> executions = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            fs.add(pool.submit(() -> {
                for (int fire = 0; fire < 20; fire++) {
                    String fk = "fire-" + fire;
                    c.run("settle", fk, RunPolicy.waitUpTo(Duration.ofSeconds(5)), ctx -> {
                        executions.computeIfAbsent(fk, k -> new AtomicInteger()).incrementAndGet();
                        return null;
                    });
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get(Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS);
        }
        pool.shutdown();
        assertThat(executions).hasSize(20);
        assertThat(executions.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        for (int fire = 0; fire < 20; fire++) {
            assertThat(ledger.statusOf("settle", "fire-" + fire)).hasValue("COMPLETED");
        }
    }

    @Test
    void run_withItsOwnLeaseOptions_holdsBothLeasesForThatTtl_notTheCoordinatorsDefault() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.VALKEY); // default TTL 30 s
        RunOutcome<Duration> o = c.run(
                "short",
                "f1",
                RunPolicy.skipFire(),
                LeaseOptions.ofTtl(Duration.ofSeconds(3)),
                ctx -> ((ActiveRun) ctx).lease().remaining());
        assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(o.result())
                .isPositive()
                .isLessThanOrEqualTo(Duration.ofSeconds(3)); // unscaled: the lease's remaining time, not a wait
        RunOutcome<Duration> defaults = c.run(
                "short",
                "f2",
                RunPolicy.skipFire(),
                ctx -> ((ActiveRun) ctx).lease().remaining());
        assertThat(defaults.result()).isGreaterThan(Duration.ofSeconds(3));
    }

    @Test
    void begin_claimsTheFire_othersAreRefusedUntilFinish_fromAnotherThread() throws Exception {
        JobCoordinator c = coordinator(JobCoordinator.Mode.VALKEY);
        RunClaim claim = c.begin("job", "f1", RunPolicy.skipFire());
        assertThat(claim).isInstanceOf(RunClaim.Claimed.class);
        ActiveRun run = (ActiveRun) ((RunClaim.Claimed) claim).run();
        assertThat(run.isLeaseValid()).isTrue();
        assertThat(run.lease().fencingToken()).hasValue(run.epoch());

        RunClaim second = c.begin("job", "f1", RunPolicy.skipFire());
        assertThat(second)
                .isInstanceOfSatisfying(
                        RunClaim.NotClaimed.class,
                        n -> assertThat(n.outcome().status()).isEqualTo(RunOutcome.Status.SKIPPED_HELD_ELSEWHERE));

        ExecutorService other = Executors.newSingleThreadExecutor();
        RunOutcome<String> done =
                other.submit(() -> run.finish("ok", null)).get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
        other.shutdown();
        assertThat(done.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(run.finish("again", new RuntimeException())).isSameAs(done);
        assertThat(run.lease().state()).isEqualTo(LeaseState.RELEASED);

        RunClaim after = c.begin("job", "f1", RunPolicy.skipFire());
        assertThat(after)
                .isInstanceOfSatisfying(
                        RunClaim.NotClaimed.class,
                        n -> assertThat(n.outcome().status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE));
    }

    @Test
    void close_withoutFinish_recordsFailure_andFireCanBeRetried() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.VALKEY);
        try (ActiveRun run = (ActiveRun) ((RunClaim.Claimed) c.begin("job", "f1", RunPolicy.skipFire())).run()) {
            assertThat(run.isFinished()).isFalse();
        }
        assertThat(ledger.statusOf("job", "f1")).hasValue("FAILED");
        assertThat(c.begin("job", "f1", RunPolicy.skipFire())).isInstanceOf(RunClaim.Claimed.class);
    }

    @Test
    void run_completedFire_isSkipped_andCanReportTheEarlierRun() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.VALKEY);
        RunOutcome<String> first = c.run("job", "f1", RunPolicy.skipFire(), ctx -> "done@" + ctx.epoch());
        assertThat(first.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(first.result()).isEqualTo("done@" + first.epoch());
        RunOutcome<String> again = c.run("job", "f1", RunPolicy.returnEarlierOutcome(), ctx -> "twice");
        assertThat(again.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
        assertThat(again.epoch()).isEqualTo(first.epoch());
        assertThat(again.owner()).isEqualTo(first.owner());
        assertThat(c.run("job", "f2", RunPolicy.skipFire(), ctx -> "x").epoch()).isGreaterThan(first.epoch());
    }

    @Test
    void run_databaseLeaseHeldElsewhere_skipsEvenWhenValkeyIsFree() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.VALKEY);
        Lease other = database.tryAcquire("job").orElseThrow(); // as if Valkey lost the key in a failover
        RunOutcome<Object> o = c.run("job", "f", RunPolicy.skipFire(), ctx -> {
            throw new AssertionError("must not run");
        });
        assertThat(o.status()).isEqualTo(RunOutcome.Status.SKIPPED_HELD_ELSEWHERE);
        assertThat(valkeyStore.heldKeys()).isEmpty();
        other.release();
    }

    @Test
    void run_valkeyDown_fallbackModeUsesTheDatabase_valkeyModeFailsClosed() {
        valkeyStore.down.set(true);
        JobCoordinator strict = coordinator(JobCoordinator.Mode.VALKEY);
        assertThatThrownBy(() -> strict.run("job", "a", RunPolicy.skipFire(), ctx -> 1))
                .isInstanceOf(LeaseStoreUnavailableException.class);
        JobCoordinator c = coordinator(JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK);
        for (int i = 0; i < 4; i++) {
            RunOutcome<Integer> o = c.run("job", "b" + i, RunPolicy.skipFire(), ctx -> 1);
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(o.viaFallback()).isTrue();
        }
        assertThat(c.inFallback()).isTrue();
        assertThat(c.fallbacks()).isEqualTo(1);
    }

    @Test
    void run_workThrows_failedAndTheFireCanRunAgain() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.DATABASE);
        RunOutcome<Object> o = c.run("job", "f", RunPolicy.skipFire(), ctx -> {
            throw new IllegalStateException("boom");
        });
        assertThat(o.status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(o.error()).hasMessage("boom");
        assertThat(c.run("job", "f", RunPolicy.skipFire(), ctx -> 1).status()).isEqualTo(RunOutcome.Status.EXECUTED);
    }

    @Test
    void run_epochMovedOnDuringWork_leaseLostAndOutcomeRejected() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.DATABASE);
        RunOutcome<Object> o = c.run("job", "f", RunPolicy.skipFire(), ctx -> {
            dbStore.takeOver("job", "newer-owner", Duration.ofSeconds(30)); // a newer owner claimed the job
            assertThatThrownBy(() -> ctx.fence(null)).isInstanceOf(TenureException.class);
            return "stale";
        });
        assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
        assertThat(ledger.statusOf("job", "f")).hasValue("REJECTED_STALE");
    }

    @Test
    void valkeyModeWithoutValkey_isTheDatabaseMode() {
        JobCoordinator c = new JobCoordinator(
                Tenure.builder().mode(JobCoordinator.Mode.VALKEY).settings(),
                database,
                null,
                ledger,
                dev.tenure.metrics.RunMetrics.none());
        assertThat(c.mode()).isEqualTo(JobCoordinator.Mode.DATABASE);
        assertThat(c.run("job", "f", RunPolicy.skipFire(), ctx -> 1).status()).isEqualTo(RunOutcome.Status.EXECUTED);
    }

    @Test
    void finish_afterTheLocalDeadlinePassed_butTheEpochIsStillCurrent_recordsTheOutcome() {
        AtomicLong now = new AtomicLong();
        Ticker ticker = now::get;
        FaultyLeaseStore store = new FaultyLeaseStore(ticker);
        dev.tenure.memory.InMemoryRunLedger runs = new dev.tenure.memory.InMemoryRunLedger(store);
        try (Leases db = Leases.builder(store).ticker(ticker).build()) {
            JobCoordinator c = new JobCoordinator(
                    Tenure.builder()
                            .ticker(ticker)
                            .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                            .settings(),
                    db,
                    null,
                    runs,
                    dev.tenure.metrics.RunMetrics.none());
            RunOutcome<Object> o = c.run("job", "f", RunPolicy.skipFire(), ctx -> {
                now.addAndGet(Duration.ofSeconds(3).toNanos()); // a pause past the lease; nobody claimed meanwhile
                assertThat(ctx.isLeaseValid()).isFalse();
                return "done";
            });
            assertThat(o.status())
                    .as("the database's epoch check decides, not the local deadline")
                    .isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(runs.statusOf("job", "f")).hasValue("COMPLETED");
        }
    }

    @Test
    void completedInTheWorksTransaction_staysExecuted_evenIfTheEpochMovedOnAfterwards() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.DATABASE);
        RunOutcome<Object> o = c.run("job", "f", RunPolicy.skipFire(), ctx -> {
            ctx.complete(null); // committed together with the business writes
            dbStore.takeOver(
                    "job", "newer-owner", Duration.ofSeconds(30)); // then a pause: a newer owner claimed the job
            return "done";
        });
        assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(o.completedInTransaction()).isTrue();
        assertThat(o.fenceChecks()).isEqualTo(1);
        assertThat(ledger.statusOf("job", "f")).hasValue("COMPLETED");
    }

    @Test
    void begin_ofACompletedFire_reportsItWithoutClaiming() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.DATABASE);
        RunOutcome<Object> first = c.run("job", "f", RunPolicy.skipFire(), ctx -> "done");
        long epochAfter = dbStore.fencingToken("job");
        RunOutcome<Object> again = c.run("job", "f", RunPolicy.returnEarlierOutcome(), ctx -> {
            throw new AssertionError("a completed fire ran again");
        });
        assertThat(again.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
        assertThat(again.epoch()).isEqualTo(first.epoch());
        assertThat(dbStore.fencingToken("job")).as("no claim: no new epoch").isEqualTo(epochAfter);
    }

    @Test
    void run_workInterrupted_failed_andTheInterruptFlagIsRestored() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.DATABASE);
        try {
            RunOutcome<Object> o = c.run("job", "f", RunPolicy.skipFire(), ctx -> {
                throw new InterruptedException("stop");
            });
            assertThat(o.status()).isEqualTo(RunOutcome.Status.FAILED);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void close_refusesNewRuns_andLeavesTheLeasesOpen() {
        JobCoordinator c = coordinator(JobCoordinator.Mode.DATABASE);
        c.close();
        assertThatThrownBy(() -> c.begin("job", "f", RunPolicy.skipFire()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(database.tryAcquire("still-open"))
                .as("the Leases given to it stay open")
                .isPresent();
    }

    @Test
    void fenceChecks_areCounted_andUnfencedExecutedRunsReported() {
        List<String> reported = new ArrayList<>();
        dev.tenure.metrics.RunMetrics metrics = new dev.tenure.metrics.RunMetrics() {
            @Override
            public void runEnded(String jobKey, RunOutcome.Status status, int fenceChecks) {
                reported.add(jobKey + " " + status + " " + fenceChecks);
            }

            @Override
            public void fenceRejected(String jobKey) {
                reported.add(jobKey + " rejected");
            }
        };
        JobCoordinator c = new JobCoordinator(Tenure.builder().settings(), database, null, ledger, metrics);
        assertThat(c.run("unfenced", "f", RunPolicy.skipFire(), ctx -> 1).fenceChecks())
                .isZero();
        assertThat(c.run("fenced", "f", RunPolicy.skipFire(), ctx -> {
                            ctx.fence(null);
                            ctx.fence(null);
                            return 1;
                        })
                        .fenceChecks())
                .isEqualTo(2);
        c.run("stale", "f", RunPolicy.skipFire(), ctx -> {
            dbStore.takeOver("stale", "newer-owner", Duration.ofSeconds(30));
            ctx.fence(null);
            return 1;
        });
        assertThat(reported)
                .containsExactly("unfenced EXECUTED 0", "fenced EXECUTED 2", "stale rejected", "stale LEASE_LOST 0");
    }
}
