package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureSchema;
import dev.tenure.quartz.PausedJobScenarios.Execution;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.StderrCapture;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TimeZone;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quartz.CronScheduleBuilder;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;

/**
 * A trigger that says "never fire late" ({@code MISFIRE_INSTRUCTION_DO_NOTHING}) is not overridden by Tenure's
 * catch-ups: under the catch-up policy its job is registered with action SKIP, so the fires it missed are recorded
 * MISSED and none runs late. The backlog is made as {@code MissedFiresIT} makes it: the job's ledger position stands
 * 8 s back when the node registers it, as after an outage of every node. A job beside it with Quartz's default
 * instruction has its backlog caught up, as before.
 */
class QuartzDoNothingIT {

    private static final String CRON = "* * * * * ?";
    private static PostgresDatabase db;

    @BeforeAll
    static void start() throws SQLException {
        db = PostgresDatabases.forClass(QuartzDoNothingIT.class);
        TenureSchema.migrate(db.dataSource());
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @Test
    void doNothingTrigger_underCatchUp_missedFiresAreRecordedMissed_noneCaughtUp() throws Exception {
        JobKey never = JobKey.jobKey("never-late", "do-nothing");
        JobKey late = JobKey.jobKey("late-ok", "do-nothing-default");
        Instant registered = standingBack(never, late);
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", "do-nothing");
        p.setProperty("org.quartz.threadPool.threadCount", "2");
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        Scheduler scheduler = new StdSchedulerFactory(p).getScheduler();
        try (Tenure tenure = Tenure.builder()
                        .dataSource(db.dataSource())
                        .application("do-nothing")
                        .sweepInterval(Duration.ofMillis(200))
                        .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                        .build();
                StderrCapture log = new StderrCapture()) {
            QuartzCoordination.builder(tenure)
                    .missedFires(MissedFirePolicy.catchUp().withGrace(Duration.ofMillis(500)))
                    .build()
                    .registerListeners(scheduler);
            scheduler.scheduleJob(
                    PausedJobScenarios.detail(never, false),
                    TriggerBuilder.newTrigger()
                            .withIdentity(never.getName(), never.getGroup())
                            .withSchedule(CronScheduleBuilder.cronSchedule(CRON)
                                    .inTimeZone(TimeZone.getTimeZone("UTC"))
                                    .withMisfireHandlingInstructionDoNothing())
                            .build());
            scheduler.scheduleJob(PausedJobScenarios.detail(late, false), PausedJobScenarios.trigger(late));
            scheduler.start();

            await("the default trigger's backlog is caught up")
                    .atMost(Timing.scaled(Duration.ofSeconds(15)))
                    .until(() -> catchUps(late).size() >= 5);
            await("the DO_NOTHING trigger's backlog is recorded MISSED")
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> missed(never, registered).size() >= 6);

            assertThat(catchUps(never))
                    .as("catch-ups of the DO_NOTHING trigger's job")
                    .isEmpty();
            assertThat(missed(late, registered))
                    .as("MISSED fires of the default trigger's backlog")
                    .isEmpty();
            assertThat(policy(never)).isEqualTo("SKIP");
            assertThat(policy(late)).isEqualTo("CATCH_UP");
            assertThat(strings(
                            "SELECT error FROM tenure.job_runs WHERE job_key = ? AND status = 'MISSED'",
                            FireKeys.jobKey(never)))
                    .allMatch(why -> why.endsWith("policy SKIP"));
            assertThat(log.lines())
                    .as("one INFO line names the job whose triggers never fire late")
                    .filteredOn(l -> l.contains(" INFO ") && l.contains("never fire late"))
                    .hasSize(1)
                    .allMatch(l -> l.contains(FireKeys.jobKey(never)) && !l.contains(FireKeys.jobKey(late)));
        } finally {
            scheduler.shutdown(true);
        }
    }

    /** Both jobs' ledger positions stand 8 s back, with the schedule they are about to register; returns now. */
    private static Instant standingBack(JobKey... jobs) throws SQLException {
        for (JobKey job : jobs) {
            String key = FireKeys.jobKey(job);
            update("INSERT INTO tenure.job_execution (job_key) VALUES (?)", key);
            update(
                    "INSERT INTO tenure.job_schedule (job_key, kind, expression, policy, integration, registered_by, "
                            + "application, swept_until) VALUES (?, 'quartz', 'cron " + CRON + " (UTC)', 'catch-up', "
                            + "'quartz', 'gone', 'do-nothing', date_trunc('second', clock_timestamp()) - "
                            + "interval '8 seconds')",
                    key);
        }
        return Instant.now();
    }

    private static List<Execution> catchUps(JobKey job) {
        return PausedJobScenarios.EXECUTIONS.getOrDefault(job.getGroup(), List.of()).stream()
                .filter(Execution::catchUp)
                .toList();
    }

    /** The job's fires due before {@code before} that are recorded MISSED. */
    private static List<Instant> missed(JobKey job, Instant before) throws SQLException {
        return strings(
                        "SELECT fire_key FROM tenure.job_runs WHERE job_key = ? AND status = 'MISSED'",
                        FireKeys.jobKey(job))
                .stream()
                .map(Instant::parse)
                .filter(t -> t.isBefore(before))
                .toList();
    }

    private static String policy(JobKey job) throws SQLException {
        return strings("SELECT policy_action FROM tenure.job_schedule WHERE job_key = ?", FireKeys.jobKey(job))
                .get(0);
    }

    private static void update(String sql, String arg) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, arg);
            ps.executeUpdate();
        }
    }

    private static List<String> strings(String sql, String arg) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, arg);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
