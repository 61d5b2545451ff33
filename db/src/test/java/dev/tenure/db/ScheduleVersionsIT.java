package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.MissedFirePolicy;
import dev.tenure.spi.ScheduleLedger;
import dev.tenure.spi.ScheduleLedger.Registered;
import dev.tenure.spi.ScheduleLedger.ScheduleRow;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A schedule change on Postgres: registering another schedule for a job makes it the next version from the database's
 * instant, and the old version is accounted for up to that instant. The change's UPDATE once ended in {@code RETURNING
 * version} and ran as an update: the driver refused it ("A result was returned when none was expected"), so every
 * schedule change failed with a LedgerUnavailableException and the process that brought it could not start.
 */
class ScheduleVersionsIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(ScheduleVersionsIT.class);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static ScheduleRow row(String expression) {
        return new ScheduleRow(
                "report", "default", "fixed-rate", expression, MissedFirePolicy.catchUp(), "catch-up", "test", "node");
    }

    @Test
    void anotherSchedule_isTheNextVersionFromTheDatabasesInstant_theSameOneAgainChangesNothing() {
        ScheduleLedger ledger = new JdbcScheduleLedger(new Jdbc(fx.pool, Duration.ofSeconds(5)), "tenure");
        assertThat(ledger.register(row("PT3S")).created()).isTrue();

        Registered changed = ledger.register(row("PT2S"));
        assertThat(changed.version()).isEqualTo(2);
        assertThat(changed.replaced()).map(ScheduleRow::expression).contains("PT3S");
        assertThat(fx.query("SELECT version || ' ' || expression || ' ' || (version_from = changed_at) FROM "
                        + "tenure.job_schedule WHERE job_key = 'report'"))
                .containsExactly("2 PT2S true");
        assertThat(
                        fx.query(
                                "SELECT v.version || ' ' || v.expression || ' ' || coalesce((v.valid_until = s.changed_at)"
                                        + "::text, 'open') || ' ' || coalesce((v.valid_from = s.changed_at)::text, '-') FROM "
                                        + "tenure.job_schedule_version v JOIN tenure.job_schedule s USING (job_key) ORDER BY v.version"))
                .containsExactly("1 PT3S true false", "2 PT2S open true");

        Registered again = ledger.register(row("PT2S"));
        assertThat(again.version()).isEqualTo(2);
        assertThat(again.replaced()).isEmpty();
        assertThat(fx.query("SELECT count(*) FROM tenure.job_schedule_version WHERE job_key = 'report'"))
                .containsExactly("2");
    }
}
