package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.MissedFirePolicy;
import dev.tenure.spi.ScheduleLedger.ScheduleRow;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link TenureAdmin#overdue}: the fires overdue now, from the ledger and the database clock alone. A fixed rate of a
 * minute whose account stands 10 minutes back (slots {@code -9 … 0} min from the minute its account stands at + 10):
 * a slot inside an ended PAUSED span is excused, a COMPLETED, a FAILED and a MISSED run are accounted for, a run under
 * a live lease is not overdue, a REJECTED_STALE and an ABANDONED one are; a paused schedule has none; a kind without a
 * reader is at least the fire at {@code next_due_at}.
 */
class OverdueFiresIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(OverdueFiresIT.class);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void overdue_countsTheUnaccountedSlotsPastTheirGrace_outsideSpans_andNeverForAPausedSchedule() throws Exception {
        JdbcScheduleLedger ledger = new JdbcScheduleLedger(new Jdbc(fx.pool, Duration.ofSeconds(5)), "tenure");
        for (String job : List.of("billing", "paused", "quartz-job", "custom-job")) {
            ledger.register(new ScheduleRow(
                    job,
                    "shop",
                    job.equals("quartz-job") ? "quartz" : job.equals("custom-job") ? "custom" : "fixed-rate",
                    job.equals("quartz-job") ? "0 * * * * ?" : job.equals("custom-job") ? "every minute" : "PT1M",
                    MissedFirePolicy.catchUp(),
                    "catch-up",
                    "scheduled",
                    "node-1"));
        }
        String base = "date_trunc('minute', clock_timestamp()) - interval '10 minutes'";
        String slot = "to_char((" + base + " + interval '%d minutes') AT TIME ZONE 'UTC', "
                + "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')";
        sql("UPDATE tenure.job_schedule SET grace_ms = 5000, swept_until = " + base + ", next_due_at = " + base
                + " + interval '1 minute', version_from = NULL");
        sql("UPDATE tenure.job_schedule SET state = 'PAUSED' WHERE job_key = 'paused'");
        // slot +2 excused by a PAUSED span that ended; +3 COMPLETED, +4 FAILED, +5 MISSED: accounted for
        sql("INSERT INTO tenure.job_schedule_span (job_key, state, from_at, until_at, reason, set_by) VALUES "
                + "('billing', 'PAUSED', " + base + " + interval '110 seconds', " + base
                + " + interval '130 seconds', 'paused in Quartz', 'node-1')");
        run(slot, 3, "COMPLETED", "o-3", 3);
        run(slot, 4, "FAILED", "o-4", 4);
        run(slot, 5, "MISSED", "sweeper", 5);
        // +6 runs under a live lease: not overdue; +7 REJECTED_STALE and +8 ABANDONED: overdue
        sql("UPDATE tenure.job_execution SET owner = 'o-6', fencing_token = 6, lease_expires_at = clock_timestamp() "
                + "+ interval '1 minute' WHERE job_key = 'billing'");
        run(slot, 6, "RUNNING", "o-6", 6);
        run(slot, 7, "REJECTED_STALE", "o-7", 5);
        run(slot, 8, "ABANDONED", "o-8", 5);
        // a kind nobody here reads whose fire at next_due_at completed, and no sweeper moved its account on since
        run("custom-job", slot, 1, "COMPLETED", "o-1", 1);
        int dueNow =
                Integer.parseInt(query("SELECT floor(extract(epoch FROM (clock_timestamp() - interval '5 seconds' - ("
                        + base + "))) / 60)::int"));

        Map<String, OverdueFires> overdue = TenureAdmin.create(fx.pool)
                .overdue(List.of("billing", "paused", "quartz-job", "custom-job", "no-such-job"));
        int dueAfter =
                Integer.parseInt(query("SELECT floor(extract(epoch FROM (clock_timestamp() - interval '5 seconds' - ("
                        + base + "))) / 60)::int"));

        OverdueFires billing = overdue.get("billing");
        // slots 1..due: minus +2 (span), +3, +4, +5 (accounted for), +6 (running)
        assertThat(billing.count()).isBetween(dueNow - 5L, dueAfter - 5L); // unscaled: slot counts, not a time bound
        assertThat(billing.exact()).isTrue();
        assertThat(billing.since()).isEqualTo(Instant.parse(query("SELECT " + slot.formatted(1))));
        assertThat(billing.fireKeys())
                .startsWith(
                        query("SELECT " + slot.formatted(1)),
                        query("SELECT " + slot.formatted(7)),
                        query("SELECT " + slot.formatted(8)));
        assertThat(billing.describe()).matches("\\d+ fires overdue since \\S+Z");

        assertThat(overdue.get("paused").any())
                .as("a paused schedule has no due fires")
                .isFalse();
        OverdueFires quartz = overdue.get("quartz-job");
        assertThat(quartz.exact()).as("no reader here").isFalse();
        assertThat(quartz.shown()).isEqualTo("1+");
        assertThat(quartz.since()).isEqualTo(Instant.parse(query("SELECT " + slot.formatted(1))));
        OverdueFires custom = overdue.get("custom-job");
        assertThat(custom.shown())
                .as("the fire at next_due_at ran and the account stands before it: not a plain 0")
                .isEqualTo("0+");
        assertThat(custom.any()).isFalse();
        assertThat(overdue).doesNotContainKey("no-such-job");
    }

    private static void run(String slot, int minute, String status, String owner, long epoch) throws Exception {
        run("billing", slot, minute, status, owner, epoch);
    }

    private static void run(String job, String slot, int minute, String status, String owner, long epoch)
            throws Exception {
        sql("INSERT INTO tenure.job_run (run_id, job_key, fire_key, epoch, owner, status, started_at) VALUES "
                + "(gen_random_uuid(), '" + job + "', " + slot.formatted(minute) + ", " + epoch + ", '" + owner + "', '"
                + status + "', clock_timestamp())");
    }

    private static String query(String q) throws Exception {
        try (Connection c = fx.pool.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(q)) {
            r.next();
            return r.getString(1);
        }
    }

    private static void sql(String statement) throws Exception {
        try (Connection c = fx.pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}
