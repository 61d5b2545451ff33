package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.boot.actuate.TenureFiresHealthIndicator;
import dev.tenure.db.TenureAdmin;
import dev.tenure.db.TenureDataSources;
import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health component {@code tenureFires} ({@link TenureFiresHealthIndicator}, with {@code overdue-health=down}) over a
 * real {@link TenureAdmin} and Postgres. The schedules are real registrations; what the sweeper would have written
 * (overdue fires, a recent MISSED, a check time long past, a sweep error, a pause) is written with SQL.
 */
class FiresHealthIT {

    private static PostgresDatabase db;
    private static HikariDataSource pool;
    private static TenureAdmin admin;
    private final TenureFiresHealthIndicator health =
            new TenureFiresHealthIndicator(admin, true, Duration.ofSeconds(5));

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(FiresHealthIT.class);
        pool = TenureDataSources.hikari(db.jdbcUrl(), db.username(), db.password());
        TenureSchema.migrate(pool);
        admin = TenureAdmin.create(pool);
    }

    @AfterAll
    static void stop() {
        pool.close();
        db.close();
    }

    @BeforeEach
    void noSchedules() throws Exception {
        sql("DELETE FROM tenure.job_schedule_span; DELETE FROM tenure.job_schedule_version; "
                + "DELETE FROM tenure.job_catch_up; DELETE FROM tenure.job_schedule");
    }

    /** Registers {@code jobs} as one process of application "shop" does, and stops that process. */
    private static void register(String... jobs) {
        try (Tenure shop = Tenure.builder().dataSource(pool).application("shop").build()) {
            for (String job : jobs) {
                shop.register(ScheduledJob.of(job, Schedule.fixedRate(Duration.ofHours(1)), fire -> {}));
            }
        }
    }

    @Test
    void aRetiredJob_withOverdueAndRecentlyMissedFires_isNotListed_andHealthStaysUp() throws Exception {
        register("gone");
        sql("UPDATE tenure.job_schedule SET overdue = 4, missed_total = 7, last_missed_at = clock_timestamp() "
                + "WHERE job_key = 'gone'");
        admin.retire("gone", "the job was removed in 4.2", "cli:ann");
        // a sweep that read the schedule before the retirement stores its mark after it
        sql("UPDATE tenure.job_schedule SET overdue = 4 WHERE job_key = 'gone'");

        Health h = health.health();
        assertThat(h.getStatus()).isEqualTo(Status.UP);
        assertThat(h.getDetails())
                .containsEntry("summary", "every fire accounted for")
                .doesNotContainKey("jobs");
    }

    @Test
    void anActiveJobNobodySweeps_isListedWithWhy_andHealthIsDown() throws Exception {
        register("invoices", "quiet");
        sql("UPDATE tenure.job_schedule SET swept_at = clock_timestamp() - interval '10 minutes', "
                + "check_at = clock_timestamp() - interval '9 minutes' WHERE job_key = 'invoices'");
        sql("UPDATE tenure.job_schedule SET check_at = clock_timestamp() + interval '1 minute' "
                + "WHERE job_key = 'quiet'");

        Health h = health.health();
        assertThat(h.getStatus()).isEqualTo(Status.DOWN);
        assertThat(h.getDetails().get("summary")).isEqualTo("1 job(s) need attention (0 overdue now)");
        Map<String, Object> job = job(h, "invoices");
        assertThat(job).containsEntry("state", "ACTIVE").containsEntry("application", "shop");
        assertThat(why(job))
                .singleElement()
                .asString()
                .matches("not swept since \\S+Z; due for a sweep since \\S+Z "
                        + "\\(is a process of application 'shop' running\\?\\)");
        assertThat(jobs(h)).doesNotContainKey("quiet");
    }

    @Test
    void aFailingSweep_isListedWithItsError_andAPausedJobIsListedAsPaused_withoutMakingHealthDown() throws Exception {
        register("failing", "paused");
        sql("UPDATE tenure.job_schedule SET check_at = clock_timestamp() + interval '1 minute', "
                + "sweep_error = 'cron expression ''0 0 31 2 *'' never fires' WHERE job_key = 'failing'");
        sql("UPDATE tenure.job_schedule SET state = 'PAUSED', state_since = clock_timestamp(), "
                + "state_reason = 'paused in Quartz', state_by = 'web-1/shop/7' WHERE job_key = 'paused'");

        Health h = health.health();
        assertThat(h.getStatus()).isEqualTo(Status.DOWN);
        assertThat(h.getDetails().get("summary")).isEqualTo("1 job(s) need attention (0 overdue now); 1 paused");
        assertThat(why(job(h, "failing"))).containsExactly("its sweep fails: cron expression '0 0 31 2 *' never fires");
        assertThat(job(h, "paused")).containsEntry("state", "PAUSED");
        assertThat(why(job(h, "paused")))
                .singleElement()
                .asString()
                .matches("paused since \\S+Z by web-1/shop/7: paused in Quartz");

        sql("UPDATE tenure.job_schedule SET sweep_error = NULL WHERE job_key = 'failing'");
        Health paused = health.health();
        assertThat(paused.getStatus()).as("paused alone").isEqualTo(Status.UP);
        assertThat(paused.getDetails().get("summary")).isEqualTo("every fire accounted for; 1 job(s) paused");
        assertThat(jobs(paused)).containsOnlyKeys("paused");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> jobs(Health h) {
        return (Map<String, Object>) h.getDetails().get("jobs");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> job(Health h, String key) {
        Map<String, Object> job = (Map<String, Object>) jobs(h).get(key);
        assertThat(job).as("%s in %s", key, h.getDetails()).isNotNull();
        return job;
    }

    @SuppressWarnings("unchecked")
    private static List<String> why(Map<String, Object> job) {
        return (List<String>) job.get("why");
    }

    private static void sql(String statements) throws Exception {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(statements);
        }
    }
}
