package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link Tenure#close()} in the middle of a run, on real Valkey and Postgres, with a 30 s lease TTL: it stops new runs,
 * waits for the run up to its drain timeout, abandons it if it is still going (ABANDONED, reason shutdown), and only
 * then releases and closes; so another Tenure runs the job's next fire at once, not after the TTL.
 */
class TenureCloseIT {

    private static final Duration TTL = Duration.ofSeconds(30);

    private static CoordinatorServers servers;
    private final ExecutorService worker = Executors.newSingleThreadExecutor();

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(TenureCloseIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @AfterEach
    void stopWorker() throws InterruptedException {
        worker.shutdownNow();
        assertThat(worker.awaitTermination(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                .isTrue();
    }

    private static Tenure.Builder tenure() {
        return Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(TTL))
                .valkey(ValkeyConfig.standalone(servers.valkey.address()).build());
    }

    /** Runs {@code fire} of {@code job} on the worker: it begins, waits for {@code proceed}, then writes and completes. */
    private Future<RunOutcome<Integer>> runOn(
            Tenure tenure, String job, String fire, CountDownLatch began, CountDownLatch proceed) {
        return worker.submit(() -> tenure.coordinator().run(job, fire, RunPolicy.skipFire(), ctx -> {
            began.countDown();
            proceed.await(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
            FencedWrite.insert(servers.db.dataSource(), ctx, job + "/" + fire);
            return 1;
        }));
    }

    @Test
    void close_midRun_runEndsWithinTheDrain_completesThenReleases_andTheNextFireRunsAtOnce() throws Exception {
        String job = "close-drained";
        Tenure holder = tenure().build();
        CountDownLatch began = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        Future<RunOutcome<Integer>> run = runOn(holder, job, "f1", began, proceed);
        assertThat(began.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                .isTrue();
        AtomicLong closeMillis = new AtomicLong(-1);
        Thread closer = new Thread(
                () -> {
                    long closing = System.nanoTime();
                    holder.close();
                    closeMillis.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing));
                },
                "closer");
        closer.start();
        Thread.sleep(300);
        proceed.countDown(); // the run goes on while close() waits for it
        closer.join(Timing.scaledMillis(20_000));
        RunOutcome<Integer> o = run.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
        Duration next = nextFireAtOnce(job);
        System.out.printf(
                "close() during a run that ended 300 ms later: close took %d ms; the run %s; run row %s; "
                        + "another Tenure ran the next fire in %d ms (TTL %d s)%n",
                closeMillis.get(), o.status(), row(job, "f1"), next.toMillis(), TTL.toSeconds());
        assertThat(closer.isAlive()).as("close() returned").isFalse();
        assertThat(closeMillis.get()).as("close() waited for the run").isGreaterThanOrEqualTo(200);
        assertThat(o.status()).as("the run finished within the drain").isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(row(job, "f1")).isEqualTo("COMPLETED null");
        assertThat(servers.count("SELECT count(*) FROM business_ledger WHERE fire_key = '" + job + "/f1'"))
                .isEqualTo(1);
        assertNoLease(job);
    }

    @Test
    void close_midRun_runOutlastsTheDrain_isAbandonedForShutdown_releasesAtOnce_andItsLateWriteIsRefused()
            throws Exception {
        String job = "close-abandoned";
        Duration drain = Duration.ofMillis(500);
        Tenure holder = tenure().drainTimeout(drain).build();
        CountDownLatch began = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        Future<RunOutcome<Integer>> run = runOn(holder, job, "f1", began, proceed);
        assertThat(began.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                .isTrue();
        long closing = System.nanoTime();
        holder.close();
        long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing);
        String rowAfterClose = row(job, "f1");
        assertNoLease(job);
        Duration next = nextFireAtOnce(job);
        proceed.countDown(); // the abandoned run wakes up and tries to write
        RunOutcome<Integer> o = run.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
        System.out.printf(
                "close() during a run that outlasts the %d ms drain: close took %d ms; run row right after: "
                        + "%s; another Tenure ran the next fire in %d ms (TTL %d s); the abandoned run, woken: %s (%s)%n",
                drain.toMillis(), closeMillis, rowAfterClose, next.toMillis(), TTL.toSeconds(), o.status(), o.error());
        assertThat(closeMillis)
                .as("close() waited for the drain, not much longer")
                .isBetween(drain.toMillis(), drain.toMillis() + Timing.scaledMillis(3000));
        assertThat(rowAfterClose)
                .as("the run's row right after close()")
                .startsWith("ABANDONED ")
                .contains("shutdown");
        assertThat(o.status()).as("the abandoned run's outcome").isEqualTo(RunOutcome.Status.LEASE_LOST);
        assertThat(row(job, "f1")).as("the run's row after it woke").isEqualTo(rowAfterClose);
        assertThat(servers.count("SELECT count(*) FROM business_ledger WHERE fire_key = '" + job + "/f1'"))
                .as("the abandoned run's write")
                .isZero();
    }

    /**
     * SIGTERM to a plain Java process whose shutdown hook closes its Tenure, in the middle of a run: the run ends within
     * the drain, and both its leases are released before the process exits (Valkey's client, too, is still usable then).
     */
    @Test
    void sigterm_plainJavaClosingTenureInAShutdownHook_runCompletes_andLeavesNoLease() throws Exception {
        String job = "close-sigterm";
        try (JvmProcess p = JvmProcess.start(
                List.of("-Xmx128m"),
                SigtermWorker.class.getName(),
                List.of(
                        servers.valkey.address(),
                        servers.db.jdbcUrl(),
                        servers.db.username(),
                        servers.passwordArg(),
                        job,
                        "1500"))) {
            p.awaitStdoutLine(l -> l.startsWith("BEGIN "), Timing.scaled(Duration.ofSeconds(60)));
            long term = System.nanoTime();
            p.terminate();
            assertThat(p.waitFor(Timing.scaled(Duration.ofSeconds(30))))
                    .as("the process exits")
                    .isPresent();
            long exitMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - term);
            Object valkeyLease = servers.valkey.command("GET", "{tenure:" + job + "}:lease");
            Object pttl = servers.valkey.command("PTTL", "{tenure:" + job + "}:lease");
            System.out.printf(
                    "SIGTERM during a 1500 ms run: exited %d ms later, saying %s; run row %s; Valkey lease "
                            + "left: %s (PTTL %s); stderr %s%n",
                    exitMillis, p.stdoutLines(), row(job, "f1"), valkeyLease, pttl, p.stderrLines());
            assertThat(row(job, "f1")).as("the run finished within the drain").isEqualTo("COMPLETED null");
            assertNoLease(job);
        }
        nextFireAtOnce(job);
    }

    /** Another Tenure runs fire f2 at once (no wait for the TTL): how long the first attempt took. */
    private static Duration nextFireAtOnce(String job) {
        try (Tenure other = tenure().build()) {
            long t = System.nanoTime();
            RunOutcome<Void> o = other.coordinator().run(job, "f2", RunPolicy.skipFire(), ctx -> null);
            Duration took = Duration.ofNanos(System.nanoTime() - t);
            assertThat(o.status())
                    .as("the next fire, on another Tenure, at the first attempt")
                    .isEqualTo(RunOutcome.Status.EXECUTED);
            return took;
        }
    }

    private static void assertNoLease(String job) throws Exception {
        // released: no key, or the marker that a completed fire leaves for one TTL (no holder)
        Object valkey = servers.valkey.command("GET", "{tenure:" + job + "}:lease");
        assertThat(valkey == null || valkey.toString().startsWith("d:"))
                .as("the Valkey lease is released (value %s)", valkey)
                .isTrue();
        assertThat(servers.one("SELECT owner FROM tenure.job_execution WHERE job_key = '" + job + "'"))
                .as("the database lease's owner")
                .isNull();
    }

    private static String row(String job, String fire) throws Exception {
        return servers.one("SELECT status || ' ' || coalesce(error, 'null') FROM tenure.job_runs WHERE job_key = '"
                + job + "' AND fire_key = '" + fire + "'");
    }
}
