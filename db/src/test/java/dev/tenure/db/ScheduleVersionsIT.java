package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.MissedFirePolicy;
import dev.tenure.spi.ScheduleLedger.Registered;
import dev.tenure.spi.ScheduleLedger.ScheduleRow;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A changed schedule on Postgres: the same schedule refreshes its registration, a different one becomes the next
 * version from the database's instant, where the previous version ends.
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

    private static ScheduleRow row(String expression, String node) {
        return new ScheduleRow(
                "report",
                "rolling",
                "spring-cron",
                expression,
                MissedFirePolicy.catchUp(),
                "catch-up",
                "scheduled",
                node);
    }

    @Test
    void register_aChangedSchedule_isTheNextVersionFromTheDatabasesInstant() {
        JdbcScheduleLedger ledger = new JdbcScheduleLedger(fx.pool, "tenure", Duration.ofSeconds(5));

        Registered first = ledger.register(row("*/3 * * * * * (UTC)", "v1-a"));
        Registered same = ledger.register(row("*/3 * * * * * (UTC)", "v1-b"));
        Registered changed = ledger.register(row("*/2 * * * * * (UTC)", "v2-a"));
        Registered again = ledger.register(row("*/2 * * * * * (UTC)", "v2-b"));

        assertThat(first.created()).isTrue();
        assertThat(same.version()).isEqualTo(1);
        assertThat(same.replaced()).isEmpty();
        assertThat(changed.version()).isEqualTo(2);
        assertThat(changed.replaced()).map(ScheduleRow::expression).contains("*/3 * * * * * (UTC)");
        assertThat(again.version()).isEqualTo(2);
        assertThat(again.replaced()).isEmpty();
        assertThat(fx.query("SELECT version || ' ' || expression || ' ' || registered_by || ' '"
                        + " || (valid_until IS NULL) FROM tenure.job_schedule_version WHERE job_key = 'report'"
                        + " ORDER BY version"))
                .containsExactly("1 */3 * * * * * (UTC) v1-a false", "2 */2 * * * * * (UTC) v2-a true");
        assertThat(fx.query("SELECT (v1.valid_until = v2.valid_from AND v2.valid_from = s.version_from"
                        + " AND s.version = 2 AND s.expression = v2.expression)::text"
                        + " FROM tenure.job_schedule s"
                        + " JOIN tenure.job_schedule_version v1 ON v1.job_key = s.job_key AND v1.version = 1"
                        + " JOIN tenure.job_schedule_version v2 ON v2.job_key = s.job_key AND v2.version = 2"
                        + " WHERE s.job_key = 'report'"))
                .as("version 1 ends where version 2 begins, the schedule's current version")
                .containsExactly("true");
    }
}
