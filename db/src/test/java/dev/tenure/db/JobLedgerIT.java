package dev.tenure.db;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobLedgerIT {

    private static Fixture fx;
    private static JobLedger ledger;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(JobLedgerIT.class);
        ledger = fx.ledger;
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static String key() {
        return "job-" + UUID.randomUUID();
    }

    @Test
    void claim_free_grantsEpochOne_thenReportsHolder() {
        String key = key();
        ClaimResult.Claimed c = (ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofSeconds(10));
        assertThat(c.epoch()).isEqualTo(1);
        assertThat(c.remaining()).isGreaterThan(Duration.ofSeconds(9)).isLessThanOrEqualTo(Duration.ofSeconds(10));
        assertThat(c.leaseExpiresAt()).isAfter(c.claimedAt());

        ClaimResult.HeldBy h = (ClaimResult.HeldBy) ledger.claim(key, "b", Duration.ofSeconds(10));
        assertThat(h.owner()).isEqualTo("a");
        assertThat(h.epoch()).isEqualTo(1);
        assertThat(h.remaining()).isGreaterThan(Duration.ofSeconds(8));
        assertThat(fx.query("SELECT fencing_token FROM tenure.job_execution WHERE job_key = '" + key + "'")).containsExactly("1");
    }

    @Test
    void claim_afterRelease_bumpsEpoch() {
        String key = key();
        long e1 = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofSeconds(10))).epoch();
        assertThat(ledger.release(key, e1)).isPresent();
        assertThat(ledger.release(key, e1)).isEmpty();
        long e2 = ((ClaimResult.Claimed) ledger.claim(key, "b", Duration.ofSeconds(10))).epoch();
        assertThat(e2).isEqualTo(e1 + 1);
        assertThat(ledger.holder(key)).get().extracting(JobHolder::owner).isEqualTo("b");
    }

    @Test
    void claim_afterExpiry_bumpsEpoch_andOldEpochCannotRenew() throws Exception {
        String key = key();
        long e1 = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofMillis(800))).epoch();
        assertThat(ledger.renew(key, e1, Duration.ofMillis(300))).isTrue();
        Thread.sleep(400);
        assertThat(ledger.holder(key)).isEmpty();
        assertThat(ledger.renew(key, e1, Duration.ofSeconds(10))).as("expired lease cannot be renewed").isFalse();
        long e2 = ((ClaimResult.Claimed) ledger.claim(key, "b", Duration.ofSeconds(10))).epoch();
        assertThat(e2).isEqualTo(e1 + 1);
        assertThat(ledger.renew(key, e1, Duration.ofSeconds(10))).isFalse();
        assertThat(ledger.renew(key, e2, Duration.ofSeconds(10))).isTrue();
    }

    @Test
    void fence_currentEpoch_passes_staleEpochThrows() throws Exception {
        String key = key();
        long e1 = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofSeconds(10))).epoch();
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            ledger.fence(c, key, e1);
            assertThatThrownBy(() -> ledger.fence(c, key, e1 + 1)).isInstanceOf(StaleOwnerException.class)
                    .hasMessageContaining("presented epoch " + (e1 + 1));
            c.rollback();
        }
        try (Connection c = fx.pool.getConnection()) {
            assertThatThrownBy(() -> ledger.fence(c, key, e1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("autocommit");
        }
    }

    @Test
    void startRun_thenFinish_completedFireIsNotRunAgain() {
        String key = key();
        long e1 = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofSeconds(10))).epoch();
        RunStart.Started s = (RunStart.Started) ledger.startRun(key, "fire-1", e1, "a");
        assertThat(s.attempt()).isEqualTo(1);
        assertThat(ledger.startRun(key, "fire-1", e1, "a")).isInstanceOf(RunStart.RunningElsewhere.class);
        assertThat(ledger.finish(key, e1, s.runId(), RunStatus.COMPLETED, null)).isTrue();
        assertThat(ledger.holder(key)).isEmpty();

        long e2 = ((ClaimResult.Claimed) ledger.claim(key, "b", Duration.ofSeconds(10))).epoch();
        RunStart again = ledger.startRun(key, "fire-1", e2, "b");
        assertThat(again).isInstanceOf(RunStart.AlreadyCompleted.class);
        assertThat(((RunStart.AlreadyCompleted) again).runId()).isEqualTo(s.runId());
        assertThat(ledger.runOf(key, "fire-1")).get().extracting(RunRecord::status).isEqualTo(RunStatus.COMPLETED);
    }

    @Test
    void recordOutcome_keepsTheLeaseForItsHolderToRelease_staleEpochRejected() {
        String key = key();
        long e1 = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofSeconds(10))).epoch();
        RunStart.Started s = (RunStart.Started) ledger.startRun(key, "fire-1", e1, "a");
        assertThat(ledger.recordOutcome(key, e1, s.runId(), RunStatus.COMPLETED, null)).isTrue();
        assertThat(ledger.runOf(key, "fire-1")).get().extracting(RunRecord::status).isEqualTo(RunStatus.COMPLETED);
        assertThat(ledger.holder(key)).get().extracting(JobHolder::owner).isEqualTo("a");
        assertThat(ledger.releaseIfOwner(key, "a")).as("the holder's own release still finds its lease").isTrue();
        assertThat(ledger.holder(key)).isEmpty();

        long e2 = ((ClaimResult.Claimed) ledger.claim(key, "b", Duration.ofSeconds(10))).epoch();
        RunStart.Started s2 = (RunStart.Started) ledger.startRun(key, "fire-2", e2, "b");
        assertThat(ledger.recordOutcome(key, e2 - 1, s2.runId(), RunStatus.COMPLETED, null)).isFalse();
        assertThat(ledger.holder(key)).get().extracting(JobHolder::owner).isEqualTo("b");
    }

    @Test
    void finish_afterBeingFencedOut_rejectsTheOutcome_andTheFireIsRetried() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofMillis(800))).epoch();
        RunStart.Started s = (RunStart.Started) ledger.startRun(key, "fire-1", n, "a");
        ledger.renew(key, n, Duration.ofMillis(100));
        Thread.sleep(200);
        long m = ((ClaimResult.Claimed) ledger.claim(key, "b", Duration.ofSeconds(10))).epoch();
        assertThat(ledger.finish(key, n, s.runId(), RunStatus.COMPLETED, null)).isFalse();
        assertThat(ledger.runOf(key, "fire-1")).get().extracting(RunRecord::status).isEqualTo(RunStatus.REJECTED_STALE);
        assertThat(ledger.holder(key)).get().extracting(JobHolder::owner).isEqualTo("b");

        RunStart.Started retry = (RunStart.Started) ledger.startRun(key, "fire-1", m, "b");
        assertThat(retry.attempt()).isEqualTo(2);
        assertThat(retry.previousStatus()).isEqualTo(RunStatus.REJECTED_STALE);
        assertThat(fx.query("SELECT status || ' ' || current_run_id FROM tenure.job_execution WHERE job_key = '" + key + "'"))
                .containsExactly("RUNNING " + retry.runId());
    }

    @Test
    void failedFire_isTakenOverByTheNextAttempt_completedOneIsFinal() {
        String key = key();
        long n = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofSeconds(10))).epoch();
        RunStart.Started s = (RunStart.Started) ledger.startRun(key, "fire-1", n, "a");
        assertThat(ledger.finish(key, n, s.runId(), RunStatus.FAILED, "boom")).isTrue();
        RunRecord failed = ledger.runOf(key, "fire-1").orElseThrow();
        assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
        assertThat(failed.error()).isEqualTo("boom");
        assertThat(failed.finishedAt()).isAfterOrEqualTo(failed.startedAt());

        long m = ((ClaimResult.Claimed) ledger.claim(key, "b", Duration.ofSeconds(10))).epoch();
        RunStart.Started retry = (RunStart.Started) ledger.startRun(key, "fire-1", m, "b");
        assertThat(retry.attempt()).isEqualTo(2);
        assertThat(retry.previousStatus()).isEqualTo(RunStatus.FAILED);
        assertThat(ledger.finish(key, m, retry.runId(), RunStatus.COMPLETED, null)).isTrue();
        assertThat(ledger.runOf(key, "fire-1")).get().satisfies(r -> {
            assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
            assertThat(r.error()).isNull();
            assertThat(r.owner()).isEqualTo("b");
        });
    }

    @Test
    void startRun_byAStaleOrForeignHolder_isRefused() {
        String key = key();
        long n = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofSeconds(10))).epoch();
        assertThatThrownBy(() -> ledger.startRun(key, "fire-1", n + 1, "a")).isInstanceOf(StaleOwnerException.class);
        assertThatThrownBy(() -> ledger.startRun(key, "fire-1", n, "b")).isInstanceOf(StaleOwnerException.class);
        assertThatThrownBy(() -> ledger.startRun("never-claimed-" + key, "fire-1", 1, "a"))
                .isInstanceOfSatisfying(StaleOwnerException.class, e -> assertThat(e.currentEpoch()).isZero());
        assertThat(ledger.runOf(key, "fire-1")).isEmpty();
    }

    @Test
    void sameOwnerClaimingAgain_getsANewEpoch_oldOneIsFenced() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofSeconds(10))).epoch();
        long again = ((ClaimResult.Claimed) ledger.claim(key, "a", Duration.ofSeconds(10))).epoch();
        assertThat(again).isEqualTo(n + 1);
        assertThat(ledger.renew(key, n, Duration.ofSeconds(10))).isFalse();
        assertThat(ledger.releaseIfOwner(key, "b")).isFalse();
        assertThat(ledger.releaseIfOwner(key, "a")).isTrue();
    }
}
