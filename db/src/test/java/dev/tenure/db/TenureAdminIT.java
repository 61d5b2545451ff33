package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.DatabaseConfig;
import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.Leases;
import dev.tenure.StaleOwnerException;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Operators' force-release: the epoch moves on, the old holder is refused, the run is abandoned, an audit row written. */
class TenureAdminIT {

    private static Fixture fx;
    private static TenureAdmin admin;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(TenureAdminIT.class);
        admin = TenureAdmin.create(fx.pool);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void forceRelease_bumpsTheEpoch_refusesTheOldHolder_abandonsItsRun_andAudits() throws Exception {
        String key = "admin-" + UUID.randomUUID();
        long n = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofSeconds(30))).epoch();
        RunStart.Started run = (RunStart.Started) fx.runs.start(key, "fire-1", n, "A");
        assertThat(admin.job(key)).get().satisfies(j -> {
            assertThat(j.owner()).isEqualTo("A");
            assertThat(j.leaseLeft()).isGreaterThan(Duration.ofSeconds(25));
        });

        TenureAdmin.ForceRelease r = admin.forceRelease(key, "stuck since the deploy", "ops:alice");
        assertThat(r.oldEpoch()).isEqualTo(n);
        assertThat(r.oldOwner()).isEqualTo("A");
        assertThat(r.newEpoch()).isGreaterThan(n);
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> fx.runs.fence(c, key, n, "A")).isInstanceOf(StaleOwnerException.class);
            c.rollback();
        }
        assertThat(fx.leases.renewEpoch(key, n, "A", Duration.ofSeconds(30))).isFalse();
        assertThat(fx.runs.runOf(key, "fire-1")).get().satisfies(x -> {
            assertThat(x.status()).isEqualTo(RunStatus.ABANDONED);
            assertThat(x.error()).contains("force-released by ops:alice: stuck since the deploy");
        });
        assertThat(fx.query(
                        "SELECT actor || '|' || action || '|' || reason || '|' || old_epoch || '|' || old_owner || '|' "
                                + "|| new_epoch FROM tenure.audit_log WHERE id = " + r.auditId()))
                .containsExactly("ops:alice|force-release|stuck since the deploy|" + n + "|A|" + r.newEpoch());
        assertThat(admin.job(key)).get().satisfies(j -> {
            assertThat(j.owner()).isNull();
            assertThat(j.epoch()).isEqualTo(r.newEpoch());
        });
        assertThat(((ClaimResult.Claimed) fx.leases.claim(key, "B", Duration.ofSeconds(30))).epoch())
                .isGreaterThan(r.newEpoch());
        assertThat(admin.jobs(100)).extracting(TenureAdmin.JobState::jobKey).contains(key);
        assertThat(run.runId()).isNotNull();
    }

    /**
     * Item 8 of issue 22: a force-release notifies like a release does, so a waiter on the job's database lease is woken
     * by LISTEN/NOTIFY instead of finding the job free at its next poll. Six jobs held with 30 s leases, six threads of
     * another engine waiting up to 60 s for them (their back-off at its cap by then); each job is force-released in
     * turn. Every waiter's listener must hear the release, and every waiter must get its lease within a generous bound.
     * (A poll would find the job free too, within its back-off of at most 500 ms: the notification is what this proves.)
     */
    @Test
    void forceRelease_notifiesLikeARelease_aWaiterOfTheDatabaseLeaseIsWokenAndGetsIt() throws Exception {
        int jobs = 6;
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            keys.add("wake-" + i + "-" + UUID.randomUUID());
        }
        Map<String, Long> notifiedAt = new ConcurrentHashMap<>();
        Map<String, Long> acquiredAt = new ConcurrentHashMap<>();
        ExecutorService threads = Executors.newFixedThreadPool(jobs);
        try (ReleaseNotifications listener = ReleaseNotifications.start(fx.pool);
                Leases holder = Leases.of(Fixture.store(fx.pool, Fixture.NO_LISTEN));
                Leases waiting = Leases.of(
                        new JdbcLeaseStore( // wakes its waiters through listener, and closes it
                                Fixture.rows(fx.pool, DatabaseConfig.defaults()),
                                DatabaseConfig.defaults(),
                                listener))) {
            List<Future<Optional<Lease>>> waiters = new ArrayList<>();
            for (String key : keys) {
                holder.tryAcquire(key, LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                        .orElseThrow();
                listener.subscribe(key, () -> notifiedAt.putIfAbsent(key, System.nanoTime()));
                waiters.add(threads.submit(() -> {
                    Optional<Lease> l =
                            waiting.acquire(key, Duration.ofSeconds(60), LeaseOptions.ofTtl(Duration.ofSeconds(5)));
                    acquiredAt.put(key, System.nanoTime());
                    return l;
                }));
            }
            Thread.sleep(2500); // the waiters' back-off has grown to its cap (500 ms) by now
            assertThat(acquiredAt).as("nobody got a held job").isEmpty();
            Map<String, Long> releasedAt = new ConcurrentHashMap<>();
            for (String key : keys) {
                releasedAt.put(key, System.nanoTime());
                admin.forceRelease(key, "stuck since the deploy", "ops:alice");
                Thread.sleep(200);
            }
            List<Long> waits = new ArrayList<>();
            List<Lease> got = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                Optional<Lease> l = waiters.get(i).get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
                assertThat(l).as("the waiter of %s got the lease", keys.get(i)).isPresent();
                got.add(l.get());
                waits.add(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(keys.get(i)) - releasedAt.get(keys.get(i))));
            }
            System.out.printf("waiters got their force-released jobs after %s ms%n", waits);
            assertThat(waits).allSatisfy(ms -> assertThat(ms).isLessThan(Timing.scaledMillis(2_000)));
            // checked before the waiters release their leases, which notify too
            await().atMost(Timing.scaled(Duration.ofSeconds(2)))
                    .untilAsserted(() -> assertThat(notifiedAt.keySet())
                            .as("the force-releases NOTIFYed the waiters' listener")
                            .containsExactlyInAnyOrderElementsOf(keys));
            got.forEach(Lease::release);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void forceRelease_oldHoldersFencedTransactionStaysOpen_typedErrorAndNothingChanged() throws Exception {
        String key = "admin-" + UUID.randomUUID();
        long n = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofSeconds(30))).epoch();
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            fx.runs.fence(c, key, n, "A");
            long started = System.nanoTime();
            assertThatThrownBy(() -> admin.forceRelease(key, "test", "ops"))
                    .isInstanceOf(LeaseStoreUnavailableException.class)
                    .hasMessageContaining("lock");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Timing.scaled(Duration.ofSeconds(10)));
            c.rollback();
        }
        assertThat(admin.job(key)).get().extracting(TenureAdmin.JobState::epoch).isEqualTo(n);
        assertThat(fx.query("SELECT count(*) FROM tenure.audit_log WHERE job_key = '" + key + "'"))
                .containsExactly("0");
    }

    @Test
    void badInput_isRefusedNamingIt() {
        assertThatThrownBy(() -> admin.forceRelease("no-such-job-" + UUID.randomUUID(), "why", "ops"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no job");
        assertThatThrownBy(() -> admin.forceRelease("k", " ", "ops")).hasMessageContaining("reason");
        assertThatThrownBy(() -> admin.forceRelease("k", "why", null)).hasMessageContaining("actor");
        assertThatThrownBy(() -> admin.forceRelease("bad key", "why", "ops")).hasMessageContaining("whitespace");
        assertThatThrownBy(() -> admin.jobs(0)).hasMessageContaining("limit");
    }
}
