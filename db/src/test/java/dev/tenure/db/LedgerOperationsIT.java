package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.StaleOwnerException;
import dev.tenure.spi.RunLedger.Finished;
import dev.tenure.spi.RunLedger.FireClaim;
import dev.tenure.spi.RunLedger.FireStart;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LedgerOperationsIT {

    private static Fixture fx;
    private static JdbcLeaseStore leases;
    private static JdbcRunLedger runs;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(LedgerOperationsIT.class);
        leases = fx.leases;
        runs = fx.runs;
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static String key() {
        return "job-" + UUID.randomUUID();
    }

    @Test
    void claim_free_grantsAnEpochFromTheDatabaseClock_thenReportsHolder() {
        String key = key();
        long before = System.currentTimeMillis() * 1000 - 60_000_000L; // a minute of clock difference allowed
        ClaimResult.Claimed c = (ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10));
        assertThat(c.epoch()).as("epoch = database clock in microseconds").isGreaterThan(before);
        assertThat(c.remaining())
                .isGreaterThan(Duration.ofSeconds(9))
                .isLessThanOrEqualTo(Duration.ofSeconds(10)); // unscaled: a TTL
        assertThat(c.leaseExpiresAt()).isAfter(c.claimedAt());

        ClaimResult.Held h = (ClaimResult.Held) leases.claim(key, "b", Duration.ofSeconds(10));
        assertThat(h.owner()).isEqualTo("a");
        assertThat(h.epoch()).isEqualTo(c.epoch());
        assertThat(h.remaining()).isGreaterThan(Duration.ofSeconds(8));
        assertThat(fx.query("SELECT fencing_token FROM tenure.job_execution WHERE job_key = '" + key + "'"))
                .containsExactly(Long.toString(c.epoch()));
    }

    @Test
    void claim_afterRelease_bumpsEpoch() {
        String key = key();
        long e1 = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10))).epoch();
        assertThat(leases.releaseEpoch(key, e1, "b"))
                .as("another owner cannot release epoch e1")
                .isEmpty();
        assertThat(leases.releaseEpoch(key, e1, "a")).isPresent();
        assertThat(leases.releaseEpoch(key, e1, "a")).isEmpty();
        long e2 = ((ClaimResult.Claimed) leases.claim(key, "b", Duration.ofSeconds(10))).epoch();
        assertThat(e2).isGreaterThan(e1);
        assertThat(leases.holder(key)).get().extracting(JobHolder::owner).isEqualTo("b");
    }

    @Test
    void claim_afterExpiry_bumpsEpoch_andOldEpochCannotRenew() throws Exception {
        String key = key();
        long e1 = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofMillis(800))).epoch();
        assertThat(leases.renewEpoch(key, e1, "b", Duration.ofMillis(300)))
                .as("another owner cannot renew epoch e1")
                .isFalse();
        assertThat(leases.renewEpoch(key, e1, "a", Duration.ofMillis(300))).isTrue();
        Thread.sleep(400);
        assertThat(leases.holder(key)).isEmpty();
        assertThat(leases.renewEpoch(key, e1, "a", Duration.ofSeconds(10)))
                .as("expired lease cannot be renewed")
                .isFalse();
        long e2 = ((ClaimResult.Claimed) leases.claim(key, "b", Duration.ofSeconds(10))).epoch();
        assertThat(e2).isGreaterThan(e1);
        assertThat(leases.renewEpoch(key, e1, "a", Duration.ofSeconds(10))).isFalse();
        assertThat(leases.renewEpoch(key, e2, "b", Duration.ofSeconds(10))).isTrue();
    }

    @Test
    void fence_currentEpoch_passes_staleEpochThrows() throws Exception {
        String key = key();
        long e1 = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10))).epoch();
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            runs.fence(c, key, e1, "a");
            assertThatThrownBy(() -> runs.fence(c, key, e1 + 1, "a"))
                    .isInstanceOf(StaleOwnerException.class)
                    .hasMessageContaining("presented epoch " + (e1 + 1));
            assertThatThrownBy(() -> runs.fence(c, key, e1, "b"))
                    .isInstanceOf(StaleOwnerException.class)
                    .hasMessageContaining("belongs to owner a");
            c.rollback();
        }
        try (Connection c = fx.pool.getConnection()) {
            assertThatThrownBy(() -> runs.fence(c, key, e1, "a"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("autocommit");
        }
    }

    @Test
    void startRun_thenFinishAndRelease_completedFireIsNotRunAgain() {
        String key = key();
        long e1 = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10))).epoch();
        RunStart.Started s = (RunStart.Started) runs.start(key, "fire-1", e1, "a");
        assertThat(s.attempt()).isEqualTo(1);
        assertThat(runs.start(key, "fire-1", e1, "a")).isInstanceOf(RunStart.InProgress.class);
        assertThat(runs.finishAndRelease(key, e1, "a", s.runId(), RunStatus.COMPLETED, null))
                .isEqualTo(Finished.RECORDED);
        assertThat(leases.holder(key)).isEmpty();

        long e2 = ((ClaimResult.Claimed) leases.claim(key, "b", Duration.ofSeconds(10))).epoch();
        RunStart again = runs.start(key, "fire-1", e2, "b");
        assertThat(again).isInstanceOf(RunStart.AlreadyDone.class);
        assertThat(((RunStart.AlreadyDone) again).runId()).isEqualTo(s.runId());
        assertThat(runs.runOf(key, "fire-1"))
                .get()
                .extracting(RunRecord::status)
                .isEqualTo(RunStatus.COMPLETED);
    }

    @Test
    void finish_keepsTheLeaseForItsHolderToRelease_staleEpochRejected() {
        String key = key();
        long e1 = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10))).epoch();
        RunStart.Started s = (RunStart.Started) runs.start(key, "fire-1", e1, "a");
        assertThat(runs.finish(key, e1, "a", s.runId(), RunStatus.COMPLETED, null))
                .isEqualTo(Finished.RECORDED);
        assertThat(runs.runOf(key, "fire-1"))
                .get()
                .extracting(RunRecord::status)
                .isEqualTo(RunStatus.COMPLETED);
        assertThat(leases.holder(key)).get().extracting(JobHolder::owner).isEqualTo("a");
        assertThat(leases.releaseIfOwner(key, "a"))
                .as("the holder's own release still finds its lease")
                .isTrue();
        assertThat(leases.holder(key)).isEmpty();

        long e2 = ((ClaimResult.Claimed) leases.claim(key, "b", Duration.ofSeconds(10))).epoch();
        RunStart.Started s2 = (RunStart.Started) runs.start(key, "fire-2", e2, "b");
        assertThat(runs.finish(key, e2 - 1, "b", s2.runId(), RunStatus.COMPLETED, null))
                .isEqualTo(Finished.STALE);
        assertThat(runs.finish(key, e2, "a", s2.runId(), RunStatus.COMPLETED, null))
                .isEqualTo(Finished.STALE);
        assertThat(leases.holder(key)).get().extracting(JobHolder::owner).isEqualTo("b");
    }

    @Test
    void finishAndRelease_afterBeingFencedOut_rejectsTheOutcome_andTheFireIsRetried() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofMillis(800))).epoch();
        RunStart.Started s = (RunStart.Started) runs.start(key, "fire-1", n, "a");
        leases.renewEpoch(key, n, "a", Duration.ofMillis(100));
        Thread.sleep(200);
        long m = ((ClaimResult.Claimed) leases.claim(key, "b", Duration.ofSeconds(10))).epoch();
        assertThat(runs.finishAndRelease(key, n, "a", s.runId(), RunStatus.COMPLETED, null))
                .isEqualTo(Finished.STALE);
        assertThat(runs.runOf(key, "fire-1"))
                .get()
                .extracting(RunRecord::status)
                .isEqualTo(RunStatus.REJECTED_STALE);
        assertThat(leases.holder(key)).get().extracting(JobHolder::owner).isEqualTo("b");

        RunStart.Started retry = (RunStart.Started) runs.start(key, "fire-1", m, "b");
        assertThat(retry.attempt()).isEqualTo(2);
        assertThat(retry.previousStatus()).isEqualTo(RunStatus.REJECTED_STALE);
        assertThat(fx.query("SELECT status || ' ' || current_run_id FROM tenure.job_execution WHERE job_key = '" + key
                        + "'"))
                .containsExactly("RUNNING " + retry.runId());
    }

    @Test
    void failedFire_isTakenOverByTheNextAttempt_completedOneIsFinal() {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10))).epoch();
        RunStart.Started s = (RunStart.Started) runs.start(key, "fire-1", n, "a");
        assertThat(runs.finishAndRelease(key, n, "a", s.runId(), RunStatus.FAILED, "boom"))
                .isEqualTo(Finished.RECORDED);
        RunRecord failed = runs.runOf(key, "fire-1").orElseThrow();
        assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
        assertThat(failed.error()).isEqualTo("boom");
        assertThat(failed.finishedAt()).isAfterOrEqualTo(failed.startedAt());

        long m = ((ClaimResult.Claimed) leases.claim(key, "b", Duration.ofSeconds(10))).epoch();
        RunStart.Started retry = (RunStart.Started) runs.start(key, "fire-1", m, "b");
        assertThat(retry.attempt()).isEqualTo(2);
        assertThat(retry.previousStatus()).isEqualTo(RunStatus.FAILED);
        assertThat(runs.finishAndRelease(key, m, "b", retry.runId(), RunStatus.COMPLETED, null))
                .isEqualTo(Finished.RECORDED);
        assertThat(runs.runOf(key, "fire-1")).get().satisfies(r -> {
            assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
            assertThat(r.error()).isNull();
            assertThat(r.owner()).isEqualTo("b");
        });
    }

    @Test
    void startRun_byAStaleOrForeignHolder_isRefused() {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10))).epoch();
        assertThatThrownBy(() -> runs.start(key, "fire-1", n + 1, "a")).isInstanceOf(StaleOwnerException.class);
        assertThatThrownBy(() -> runs.start(key, "fire-1", n, "b")).isInstanceOf(StaleOwnerException.class);
        assertThatThrownBy(() -> runs.start("never-claimed-" + key, "fire-1", 1, "a"))
                .isInstanceOfSatisfying(
                        StaleOwnerException.class,
                        e -> assertThat(e.currentEpoch()).isZero());
        assertThat(runs.runOf(key, "fire-1")).isEmpty();
    }

    @Test
    void sameOwnerClaimingAgain_getsANewEpoch_oldOneIsFenced() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10))).epoch();
        long again = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10))).epoch();
        assertThat(again).isGreaterThan(n);
        assertThat(leases.renewEpoch(key, n, "a", Duration.ofSeconds(10))).isFalse();
        assertThat(leases.releaseIfOwner(key, "b")).isFalse();
        assertThat(leases.releaseIfOwner(key, "a")).isTrue();
    }

    @Test
    void complete_commitsWithTheBusinessWrite_andIsFinal_evenAfterTheLeaseMovedOn() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofMillis(800))).epoch();
        RunStart.Started s = (RunStart.Started) runs.start(key, "fire-1", n, "a");
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            runs.complete(c, key, n, "a", s.runId());
            c.rollback(); // rolled back: nothing completed
        }
        assertThat(runs.runOf(key, "fire-1"))
                .get()
                .extracting(RunRecord::status)
                .isEqualTo(RunStatus.RUNNING);
        assertThat(runs.completedRun(key, "fire-1")).isEmpty();
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            runs.complete(c, key, n, "a", s.runId());
            runs.complete(c, key, n, "a", s.runId()); // twice in one transaction: harmless
            c.commit();
        }
        assertThat(runs.completedRun(key, "fire-1"))
                .get()
                .extracting(FireStart.AlreadyDone::epoch)
                .isEqualTo(n);
        Thread.sleep(1000); // the holder stalls past its lease after the commit; another owner claims
        long m = ((ClaimResult.Claimed) leases.claim(key, "b", Duration.ofSeconds(10))).epoch();
        assertThat(runs.start(key, "fire-1", m, "b")).isInstanceOf(RunStart.AlreadyDone.class);
        assertThat(runs.finish(key, n, "a", s.runId(), RunStatus.FAILED, "late"))
                .as("the late outcome")
                .isEqualTo(Finished.ALREADY_DONE);
        assertThat(runs.runOf(key, "fire-1")).get().satisfies(r -> {
            assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
            assertThat(r.error()).isNull();
        });
        assertThat(leases.holder(key)).get().extracting(JobHolder::owner).isEqualTo("b");
    }

    @Test
    void complete_byAStaleOrForeignHolder_isRefused_andCompletesNothing() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "a", Duration.ofSeconds(10))).epoch();
        RunStart.Started s = (RunStart.Started) runs.start(key, "fire-1", n, "a");
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> runs.complete(c, key, n, "b", s.runId())).isInstanceOf(StaleOwnerException.class);
            c.rollback();
            assertThatThrownBy(() -> runs.complete(c, key, n, "a", UUID.randomUUID()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("missing");
            c.rollback();
        }
        leases.releaseIfOwner(key, "a");
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> runs.complete(c, key, n, "a", s.runId()))
                    .isInstanceOf(StaleOwnerException.class)
                    .hasMessageContaining("was released");
            c.rollback();
        }
        assertThat(runs.completedRun(key, "fire-1")).isEmpty();
    }

    @Test
    void claimAndStart_oneStatement_startsHeldAndDoneAsClaimAndStartRunWould() throws Exception {
        String key = key();
        FireClaim first = runs.claimAndStart(key, "fire-1", "a", Duration.ofSeconds(10)); // no job row yet
        assertThat(first).isInstanceOf(FireClaim.Started.class);
        FireClaim.Started a = (FireClaim.Started) first;
        assertThat(a.remaining()).isGreaterThan(Duration.ofSeconds(8));
        assertThat(leases.holder(key)).get().satisfies(h -> {
            assertThat(h.owner()).isEqualTo("a");
            assertThat(h.epoch()).isEqualTo(a.epoch());
        });
        assertThat(runs.runOf(key, "fire-1")).get().satisfies(r -> {
            assertThat(r.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(r.runId().toString()).isEqualTo(a.runId());
        });
        assertThat(runs.claimAndStart(key, "fire-2", "b", Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(
                        FireClaim.Held.class, h -> assertThat(h.owner()).isEqualTo("a"));

        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            runs.complete(c, key, a.epoch(), "a", UUID.fromString(a.runId()));
            c.commit();
        }
        assertThat(runs.finishAndRelease(key, a.epoch(), "a", UUID.fromString(a.runId()), RunStatus.COMPLETED, null))
                .isEqualTo(Finished.ALREADY_DONE);
        assertThat(leases.holder(key)).as("the finish released the lease").isEmpty();
        String epochBefore = fx.query("SELECT fencing_token FROM tenure.job_execution WHERE job_key = '" + key + "'")
                .get(0);
        assertThat(runs.claimAndStart(key, "fire-1", "b", Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(
                        FireStart.AlreadyDone.class, d -> assertThat(d.epoch()).isEqualTo(a.epoch()));
        assertThat(fx.query("SELECT fencing_token FROM tenure.job_execution WHERE job_key = '" + key + "'"))
                .as("a done fire claims nothing")
                .containsExactly(epochBefore);
        assertThat(leases.holder(key)).isEmpty();
    }

    @Test
    void claimAndStart_takesOverAFailedFire_andAbandonsOlderRunningRuns() {
        String key = key();
        FireClaim.Started a1 = (FireClaim.Started) runs.claimAndStart(key, "fire-1", "a", Duration.ofMillis(300));
        assertThat(runs.finishAndRelease(key, a1.epoch(), "a", UUID.fromString(a1.runId()), RunStatus.FAILED, "boom"))
                .isEqualTo(Finished.RECORDED);
        FireClaim.Started a2 = (FireClaim.Started) runs.claimAndStart(key, "fire-2", "a2", Duration.ofMillis(100));
        org.awaitility.Awaitility.await()
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> leases.holder(key).isEmpty());
        FireClaim.Started b = (FireClaim.Started) runs.claimAndStart(key, "fire-1", "b", Duration.ofSeconds(10));
        assertThat(b.epoch()).isGreaterThan(a2.epoch());
        assertThat(runs.runOf(key, "fire-1")).get().satisfies(r -> {
            assertThat(r.attempt()).isEqualTo(2);
            assertThat(r.owner()).isEqualTo("b");
        });
        assertThat(runs.runOf(key, "fire-2"))
                .get()
                .extracting(RunRecord::status)
                .isEqualTo(RunStatus.ABANDONED);
    }

    @Test
    void finishAndRelease_ofARunAbandonedByASuccessor_marksItRejectedStale_keepingTheAbandonReason() {
        String key = key();
        FireClaim.Started a = (FireClaim.Started) runs.claimAndStart(key, "fire-1", "a", Duration.ofMillis(100));
        org.awaitility.Awaitility.await()
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> leases.holder(key).isEmpty());
        runs.claimAndStart(key, "fire-2", "b", Duration.ofSeconds(10));
        assertThat(runs.runOf(key, "fire-1"))
                .get()
                .extracting(RunRecord::status)
                .isEqualTo(RunStatus.ABANDONED);

        assertThat(runs.finishAndRelease(
                        key, a.epoch(), "a", UUID.fromString(a.runId()), RunStatus.FAILED, "fence refused"))
                .as("the paused holder came back")
                .isEqualTo(Finished.STALE);
        assertThat(runs.runOf(key, "fire-1")).get().satisfies(r -> {
            assertThat(r.status()).isEqualTo(RunStatus.REJECTED_STALE);
            assertThat(r.error()).contains("ended while the run was RUNNING").endsWith("was refused: fence refused");
        });
        assertThat(runs.runOf(key, "fire-2"))
                .get()
                .extracting(RunRecord::status)
                .isEqualTo(RunStatus.RUNNING);
    }
}
