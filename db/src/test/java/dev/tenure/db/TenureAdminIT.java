package dev.tenure.db;

import dev.tenure.LeaseStoreUnavailableException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        long n = ((ClaimResult.Claimed) fx.ledger.claim(key, "A", Duration.ofSeconds(30))).epoch();
        RunStart.Started run = (RunStart.Started) fx.ledger.startRun(key, "fire-1", n, "A");
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
            assertThatThrownBy(() -> fx.ledger.fence(c, key, n, "A")).isInstanceOf(StaleOwnerException.class);
            c.rollback();
        }
        assertThat(fx.ledger.renew(key, n, "A", Duration.ofSeconds(30))).isFalse();
        assertThat(fx.ledger.runOf(key, "fire-1")).get().satisfies(x -> {
            assertThat(x.status()).isEqualTo(RunStatus.ABANDONED);
            assertThat(x.error()).contains("force-released by ops:alice: stuck since the deploy");
        });
        assertThat(fx.query("SELECT actor || '|' || action || '|' || reason || '|' || old_epoch || '|' || old_owner || '|' "
                + "|| new_epoch FROM tenure.audit_log WHERE id = " + r.auditId()))
                .containsExactly("ops:alice|force-release|stuck since the deploy|" + n + "|A|" + r.newEpoch());
        assertThat(admin.job(key)).get().satisfies(j -> {
            assertThat(j.owner()).isNull();
            assertThat(j.epoch()).isEqualTo(r.newEpoch());
        });
        assertThat(((ClaimResult.Claimed) fx.ledger.claim(key, "B", Duration.ofSeconds(30))).epoch()).isGreaterThan(r.newEpoch());
        assertThat(admin.jobs(100)).extracting(TenureAdmin.JobState::jobKey).contains(key);
        assertThat(run.runId()).isNotNull();
    }

    @Test
    void forceRelease_oldHoldersFencedTransactionStaysOpen_typedErrorAndNothingChanged() throws Exception {
        String key = "admin-" + UUID.randomUUID();
        long n = ((ClaimResult.Claimed) fx.ledger.claim(key, "A", Duration.ofSeconds(30))).epoch();
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            fx.ledger.fence(c, key, n, "A");
            long started = System.nanoTime();
            assertThatThrownBy(() -> admin.forceRelease(key, "test", "ops"))
                    .isInstanceOf(LeaseStoreUnavailableException.class).hasMessageContaining("lock");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
            c.rollback();
        }
        assertThat(admin.job(key)).get().extracting(TenureAdmin.JobState::epoch).isEqualTo(n);
        assertThat(fx.query("SELECT count(*) FROM tenure.audit_log WHERE job_key = '" + key + "'")).containsExactly("0");
    }

    @Test
    void badInput_isRefusedNamingIt() {
        assertThatThrownBy(() -> admin.forceRelease("no-such-job-" + UUID.randomUUID(), "why", "ops"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no job");
        assertThatThrownBy(() -> admin.forceRelease("k", " ", "ops")).hasMessageContaining("reason");
        assertThatThrownBy(() -> admin.forceRelease("k", "why", null)).hasMessageContaining("actor");
        assertThatThrownBy(() -> admin.forceRelease("bad key", "why", "ops")).hasMessageContaining("whitespace");
        assertThatThrownBy(() -> admin.jobs(0)).hasMessageContaining("limit");
    }
}
