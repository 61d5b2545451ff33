package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.MissedFirePolicy;
import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.Missed;
import dev.tenure.spi.ScheduleLedger.ScheduleRow;
import dev.tenure.spi.ScheduleLedger.SweepMark;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A retired schedule leaves the health check ({@link TenureAdmin#overdueOrMissed}), also while the fires recorded
 * MISSED before its retirement are recent: a removed job stops alarming once it is retired.
 */
class RetiredScheduleHealthIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(RetiredScheduleHealthIT.class);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void overdueOrMissed_listsARecentlyMissedJob_untilItsScheduleIsRetired() {
        JdbcScheduleLedger ledger = new JdbcScheduleLedger(new Jdbc(fx.pool, Duration.ofSeconds(5)), "tenure");
        TenureAdmin admin = TenureAdmin.create(fx.pool);
        for (String job : List.of("legacy", "report")) {
            ledger.register(new ScheduleRow(
                    job,
                    "rolling",
                    "fixed-rate",
                    "PT2S",
                    MissedFirePolicy.catchUp(),
                    "catch-up",
                    "scheduled",
                    "node-1"));
            Instant due = Instant.parse("2026-12-07T03:45:12Z");
            ledger.settle(
                    List.of(new Missed(new DueFire(job, due.toString(), due), "no node ran it")),
                    List.of(),
                    s -> List.of(new SweepMark(
                            job, 1, "ACTIVE", due, null, null, 0, s.recorded().size(), null)),
                    "sweeper");
        }
        assertThat(admin.overdueOrMissed(Duration.ofHours(1), 50))
                .extracting(TenureAdmin.ScheduleState::jobKey)
                .containsExactly("legacy", "report");

        fx.execute("UPDATE tenure.job_schedule SET seen_at = seen_at - interval '1 hour' WHERE job_key = 'legacy'");
        assertThat(ledger.retireUnseen(Duration.ofMinutes(1), "sweeper")).containsExactly("legacy");

        assertThat(admin.overdueOrMissed(Duration.ofHours(1), 50))
                .extracting(TenureAdmin.ScheduleState::jobKey)
                .as("the retired job left; the active one with a recent MISSED fire stays")
                .containsExactly("report");
    }
}
