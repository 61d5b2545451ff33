package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.boot.actuate.TenureEndpoint;
import dev.tenure.boot.actuate.TenureFiresHealthIndicator;
import dev.tenure.db.OverdueFires;
import dev.tenure.db.TenureAdmin;
import dev.tenure.db.TenureDataSources;
import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Issue 35, item 1: every instance of application "billing" is stopped; its sweeper's last stamps are 23 minutes old
 * and say {@code overdue = 0}. The health component {@code tenureFires} and the {@code tenure} endpoint of another
 * application's instance (which sweeps nothing of billing's) count billing's overdue fires with the database clock:
 * the fixed-rate job's exactly, the Spring cron job's exactly too (this instance reads Spring cron), with since when.
 */
class FleetDownHealthIT {

    private static PostgresDatabase db;
    private static HikariDataSource pool;
    private static TenureAdmin admin;
    private static Tenure ops;

    @BeforeAll
    static void start() throws Exception {
        db = PostgresDatabases.forClass(FleetDownHealthIT.class);
        pool = TenureDataSources.hikari(db.jdbcUrl(), db.username(), db.password());
        TenureSchema.migrate(pool);
        admin = TenureAdmin.create(pool);
        try (Tenure billing = Tenure.builder()
                .dataSource(pool)
                .application("billing")
                .nodeName("vm/billing/4446")
                .build()) {
            billing.register(ScheduledJob.of("invoicing", Schedule.fixedRate(Duration.ofMinutes(1)), fire -> {}));
            billing.register(
                    ScheduledJob.of("reports", SpringCronSchedule.of("30 * * * * *", ZoneOffset.UTC), fire -> {}));
        }
        sql("""
                UPDATE tenure.job_schedule SET grace_ms = 5000, overdue = 0,
                    swept_until = date_trunc('minute', clock_timestamp()) - interval '23 minutes',
                    swept_at = date_trunc('minute', clock_timestamp()) - interval '23 minutes' + interval '6 seconds',
                    swept_by = 'vm/billing/4446',
                    next_due_at = date_trunc('minute', clock_timestamp()) - interval '22 minutes',
                    check_at = date_trunc('minute', clock_timestamp()) - interval '22 minutes' + interval '5 seconds',
                    registered_at = date_trunc('minute', clock_timestamp()) - interval '3 hours',
                    version_from = date_trunc('minute', clock_timestamp()) - interval '3 hours';
                UPDATE tenure.job_schedule_version
                    SET valid_from = date_trunc('minute', clock_timestamp()) - interval '3 hours'""");
        // another application's instance, alive: it sweeps its own schedules only, and reads Spring cron
        ops = Tenure.builder().dataSource(pool).application("ops").build();
        ops.register(ScheduledJob.of("ops-report", SpringCronSchedule.of("0 0 3 * * *", ZoneOffset.UTC), f -> {}));
    }

    @AfterAll
    static void stop() {
        ops.close();
        pool.close();
        db.close();
    }

    @Test
    void aStoppedFleetsOverdueFires_areCountedByTheDatabaseClock_inHealthAndTheEndpoint() throws Exception {
        int before = slots(60, 0);
        int beforeCron = slots(60, 30);
        Health h = TenureFiresHealthIndicator.of(admin, true, Duration.ofSeconds(5), ops)
                .health();
        TenureEndpoint.Jobs endpoint = new TenureEndpoint(ops, admin, pool, "tenure").jobs();
        int after = slots(60, 0);
        int afterCron = slots(60, 30);

        assertThat(h.getStatus()).isEqualTo(Status.DOWN);
        Map<String, Object> invoicing = job(h, "invoicing");
        assertThat(((Number) invoicing.get("overdue")).intValue()).isBetween(before, after);
        assertThat(invoicing.get("overdueSince")).isEqualTo(firstSlot(0));
        assertThat(invoicing.get("overdueExact")).isEqualTo(true);
        assertThat(why(invoicing)).anySatisfy(w -> assertThat(w).matches("\\d+ fires overdue since " + firstSlot(0)));
        Map<String, Object> reports = job(h, "reports");
        assertThat(((Number) reports.get("overdue")).intValue())
                .as("a Spring cron, read by this instance")
                .isBetween(beforeCron, afterCron);
        assertThat(reports.get("overdueSince")).isEqualTo(firstSlot(30));
        assertThat((String) h.getDetails().get("summary"))
                .matches("2 job\\(s\\) need attention \\(\\d+ overdue now\\)");

        TenureEndpoint.Scheduled fixed = endpoint.schedules().stream()
                .filter(s -> s.jobKey().equals("invoicing"))
                .findFirst()
                .orElseThrow();
        assertThat(fixed.overdue()).isBetween(before, after);
        assertThat(fixed.overdueSince()).isEqualTo(firstSlot(0));
    }

    @Test
    void theOverdueCount_ofAProcessThatPassesNoReaders_walksTheSpringCronWithTheReaderOnItsClassPath()
            throws Exception {
        // what the ops console and the CLI do: TenureAdmin.overdue with no readers of their own
        int beforeCron = slots(60, 30);
        OverdueFires reports = admin.overdue(List.of("reports")).get("reports");
        int afterCron = slots(60, 30);
        assertThat(reports.exact())
                .as("walked with the spring-cron reader of the class path")
                .isTrue();
        assertThat(reports.count()).isBetween((long) beforeCron, (long) afterCron);
        assertThat(reports.since()).hasToString(firstSlot(30));
    }

    /**
     * Slots of a minute at {@code second} past the minute (0: on it) after the last sweep's swept_until that are due
     * more than the 5 s grace ago, by the database clock.
     */
    private static int slots(int period, int second) throws Exception {
        return Integer.parseInt(query("SELECT floor(extract(epoch FROM (clock_timestamp() - interval '5 seconds' "
                + "- swept_until - interval '" + (second == 0 ? period : second) + " seconds')) / " + period
                + ")::int + 1 FROM tenure.job_schedule WHERE job_key = 'invoicing'"));
    }

    /** The first slot after the last sweep's swept_until: a minute after it, or {@code second} past it. */
    private static String firstSlot(int second) throws Exception {
        return query("SELECT to_char((swept_until + interval '" + (second == 0 ? 60 : second) + " seconds') "
                + "AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM tenure.job_schedule "
                + "WHERE job_key = 'invoicing'");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> job(Health h, String key) {
        Map<String, Object> jobs = (Map<String, Object>) h.getDetails().get("jobs");
        assertThat(jobs).as("jobs in %s", h.getDetails()).isNotNull();
        Map<String, Object> job = (Map<String, Object>) jobs.get(key);
        assertThat(job).as("%s in %s", key, h.getDetails()).isNotNull();
        return job;
    }

    @SuppressWarnings("unchecked")
    private static List<String> why(Map<String, Object> job) {
        return (List<String>) job.get("why");
    }

    private static String query(String q) throws Exception {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(q)) {
            r.next();
            return r.getString(1);
        }
    }

    private static void sql(String statements) throws Exception {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(statements);
        }
    }
}
