package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.spi.RunLedger.Finished;
import dev.tenure.testkit.PostgresSource;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 4, restart: embedded Postgres is restarted under a holder with an open fenced transaction and while
 * other threads keep claiming. Every failed call is typed and bounded, the uncommitted business writes are gone, the
 * row is intact, the job is claimed cleanly afterwards, and release notifications come back on their own.
 */
class PostgresRestartIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(PostgresRestartIT.class, PostgresSource.EMBEDDED);
        fx.execute("CREATE TABLE public.business (job_key text, item int)");
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void restartUnderLoad_typedBoundedErrors_noPartialRows_cleanClaimAfterwards() throws Exception {
        String key = "restart-job";
        // A's lease must outlive the restart and the checks below (a 2 s lease ran out once on a loaded machine, and a
        // claimant took the job before the check that A still holds it)
        long n = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Timing.scaled(Duration.ofSeconds(8)))).epoch();
        RunStart.Started run = (RunStart.Started) fx.runs.start(key, "fire-1", n, "A");
        Connection a = fx.pool.getConnection();
        a.setAutoCommit(false);
        fx.runs.fence(a, key, n, "A");
        try (PreparedStatement ps = a.prepareStatement("INSERT INTO public.business VALUES ('" + key + "', 1)")) {
            ps.executeUpdate();
        }

        AtomicInteger woken = new AtomicInteger();
        try (ReleaseNotifications notifications = ReleaseNotifications.start(fx.pool);
                AutoCloseable sub = notifications.subscribe("other", woken::incrementAndGet)) {
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(notifications::isConnected);

            // other claimants keep calling through the restart
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong worstMillis = new AtomicLong();
            Map<String, Integer> errors = new ConcurrentHashMap<>();
            Thread[] threads = new Thread[3];
            for (int t = 0; t < threads.length; t++) {
                String owner = "B" + t;
                threads[t] = new Thread(() -> {
                    while (running.get()) {
                        long s = System.nanoTime();
                        try {
                            fx.leases.claim(key, owner, Duration.ofSeconds(2));
                        } catch (LedgerUnavailableException e) {
                            errors.merge(String.valueOf(e.sqlState()), 1, Integer::sum);
                        } catch (RuntimeException e) {
                            errors.merge("untyped " + e.getClass().getSimpleName(), 1, Integer::sum);
                        }
                        worstMillis.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - s), Math::max);
                        sleep(20);
                    }
                });
                threads[t].start();
            }
            sleep(200);
            long restartStarted = System.nanoTime();
            fx.db.restartServer();
            long restartMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartStarted);
            sleep(500);
            running.set(false);
            for (Thread t : threads) {
                t.join(Timing.scaledMillis(10_000));
            }
            System.out.printf(
                    "restart took %d ms; claimants' errors by SQLSTATE %s; slowest call %d ms%n",
                    restartMillis, errors, worstMillis.get());
            assertThat(errors.keySet()).noneMatch(k -> k.startsWith("untyped"));
            assertThat(worstMillis.get())
                    .as("every call bounded by connectionTimeout + statementTimeout")
                    .isLessThan(1500 + 5000 + Timing.scaledMillis(1000));

            assertThatThrownBy(a::commit).isInstanceOf(SQLException.class);
            a.close();
            assertThat(fx.query("SELECT count(*) FROM public.business")).containsExactly("0");

            // the row is intact: still epoch n, A's, its run RUNNING; once A's lease ends B claims cleanly
            assertThat(fx.query("SELECT fencing_token || ' ' || owner FROM tenure.job_execution WHERE job_key = '" + key
                            + "'"))
                    .containsExactly(n + " A");
            assertThat(fx.runs.runOf(key, "fire-1"))
                    .get()
                    .extracting(RunRecord::status)
                    .isEqualTo(RunStatus.RUNNING);
            ClaimResult.Claimed b = awaitClaim(key, "B");
            assertThat(b.epoch()).isGreaterThan(n);
            assertThat(fx.runs.start(key, "fire-1", b.epoch(), "B")).isInstanceOf(RunStart.Started.class);
            assertThat(fx.runs.finishAndRelease(key, n, "A", run.runId(), RunStatus.COMPLETED, null))
                    .isEqualTo(Finished.STALE);

            // notifications reconnected by themselves
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(notifications::isConnected);
            int before = woken.get();
            long e = ((ClaimResult.Claimed) fx.leases.claim("other", "C", Duration.ofSeconds(5))).epoch();
            sleep(Timing.scaledMillis(300)); // the subscription is re-established within ~100 ms of reconnecting
            fx.leases.releaseEpoch("other", e, "C");
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> woken.get() > before);
        }
    }

    private static ClaimResult.Claimed awaitClaim(String key, String owner) {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(15)).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (fx.leases.claim(key, owner, Duration.ofSeconds(5)) instanceof ClaimResult.Claimed c) {
                    return c;
                }
            } catch (LedgerUnavailableException e) {
                // a stale pooled connection, discarded by the pool
            }
            sleep(50);
        }
        throw new AssertionError("no clean claim of " + key + " after the restart");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
