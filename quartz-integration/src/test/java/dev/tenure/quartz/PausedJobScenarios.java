package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.StderrCapture;
import dev.tenure.testkit.Timing;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.quartz.CronScheduleBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.impl.StdSchedulerFactory;

/**
 * An operator's intent wins over Tenure's catch-ups (issue "Schedules are data", item 1): a coordinated job on a
 * one-second cron, built with {@code QuartzCoordination.builder(tenure)} under a catch-up policy, is paused in Quartz
 * five ways ({@code pauseJob}, {@code pauseAll}, {@code standby()}, {@code unscheduleJob} of a durable job, and of a
 * non-durable one, which Quartz deletes). While it is paused no catch-up runs it (before the fix the sweeper ran 7-8
 * catch-ups in 8 s through {@code triggerJob}), no fire after the pause is recorded MISSED, the ledger says PAUSED with
 * Quartz's reason and keeps the span, and the log has no WARN; once resumed, the span ends and its fires run again. Run
 * on a RAM job store ({@link QuartzPausedRamIT}) and a JDBC job store on Postgres ({@link QuartzPausedJdbcIT}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PausedJobScenarios {

    /** When each scenario's job started, and whether it was a catch-up, by job group. */
    static final Map<String, List<Execution>> EXECUTIONS = new ConcurrentHashMap<>();

    private static final Duration GRACE = Duration.ofMillis(500);
    /** How long a pause is watched. */
    private static final Duration PAUSED_FOR = Duration.ofSeconds(4);

    private PostgresDatabase db;

    /** True for a JDBC job store (JobStoreTX on the test database), false for a RAM job store. */
    abstract boolean jdbc();

    record Execution(Instant startedAt, String fireKey, boolean catchUp) {}

    /** Records its start; runs through Tenure's listeners like any coordinated job. */
    public static final class CountingJob implements Job {
        @Override
        public void execute(JobExecutionContext context) {
            EXECUTIONS
                    .computeIfAbsent(context.getJobDetail().getKey().getGroup(), g -> new CopyOnWriteArrayList<>())
                    .add(new Execution(
                            Instant.now(), FireKeys.fireKey(context), QuartzCatchUps.isCatchUp(context.getTrigger())));
        }
    }

    /** What an operator does to the job, and how it is undone. */
    @FunctionalInterface
    interface Action {
        void on(Scheduler scheduler) throws Exception;
    }

    @BeforeAll
    void createDatabase() throws Exception {
        db = PostgresDatabases.forClass(getClass());
        TenureSchema.migrate(db.dataSource());
        if (jdbc()) {
            try (InputStream in = Thread.currentThread()
                    .getContextClassLoader()
                    .getResourceAsStream("org/quartz/impl/jdbcjobstore/tables_postgres.sql")) {
                execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
    }

    @AfterAll
    void dropDatabase() {
        db.close();
    }

    @Test
    void pauseJob_noCatchUpWhilePaused_ledgerKeepsTheSpan_resumeJobRunsAgain() throws Exception {
        JobKey job = JobKey.jobKey("tick", "pause-job");
        scenario(job, true, s -> s.pauseJob(job), s -> s.resumeJob(job), "paused in Quartz");
    }

    @Test
    void pauseAll_noCatchUpWhilePaused_ledgerKeepsTheSpan_resumeAllRunsAgain() throws Exception {
        JobKey job = JobKey.jobKey("tick", "pause-all");
        scenario(job, true, Scheduler::pauseAll, Scheduler::resumeAll, "paused in Quartz");
    }

    @Test
    void standby_noCatchUpWhileStandingBy_ledgerKeepsTheSpan_startRunsAgain() throws Exception {
        JobKey job = JobKey.jobKey("tick", "standby");
        scenario(job, true, Scheduler::standby, Scheduler::start, "the Quartz scheduler is in standby");
    }

    @Test
    void unscheduleDurableJob_noCatchUpWhileUnscheduled_ledgerKeepsTheSpan_aNewTriggerRunsAgain() throws Exception {
        JobKey job = JobKey.jobKey("tick", "unschedule-durable");
        scenario(
                job,
                true,
                s -> s.unscheduleJob(triggerKey(job)),
                s -> s.scheduleJob(trigger(job)),
                "unscheduled in Quartz");
    }

    @Test
    void unscheduleNonDurableJob_deletedJob_noCatchUpNoWarning_scheduledAgainRunsAgain() throws Exception {
        JobKey job = JobKey.jobKey("tick", "unschedule-deleted");
        scenario(
                job,
                false,
                s -> s.unscheduleJob(triggerKey(job)),
                s -> s.scheduleJob(detail(job, false), trigger(job)),
                "job " + job + " is not in the Quartz scheduler (deleted or unscheduled)");
    }

    private void scenario(JobKey job, boolean durable, Action pause, Action resume, String reason) throws Exception {
        String jobKey = FireKeys.jobKey(job);
        Scheduler scheduler = scheduler(job.getGroup());
        try (Tenure tenure = Tenure.builder()
                        .dataSource(db.dataSource())
                        .application("paused-" + job.getGroup())
                        .sweepInterval(Duration.ofMillis(200))
                        .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                        .build();
                StderrCapture log = new StderrCapture()) {
            QuartzCoordination.builder(tenure)
                    .missedFires(MissedFirePolicy.catchUp().withGrace(GRACE))
                    .build()
                    .registerListeners(scheduler);
            scheduler.scheduleJob(detail(job, durable), trigger(job));
            scheduler.start();
            await().atMost(Timing.scaled(Duration.ofSeconds(15)))
                    .until(() -> executions(job, Instant.MIN).size() >= 2);

            Instant pausedAt = Instant.now();
            pause.on(scheduler);
            Thread.sleep(Timing.scaledMillis(PAUSED_FOR.toMillis()));

            List<Execution> whilePaused = executions(job, pausedAt);
            assertThat(whilePaused)
                    .as("no catch-up runs the job while it is paused")
                    .noneMatch(Execution::catchUp);
            assertThat(whilePaused)
                    .as("at most the fire already in flight when the job was paused")
                    .hasSizeLessThanOrEqualTo(1)
                    .allMatch(e -> e.startedAt().isBefore(pausedAt.plus(Timing.scaled(Duration.ofMillis(1500)))));
            await("the ledger records the pause of " + jobKey)
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() ->
                            "PAUSED".equals(one("SELECT state FROM tenure.job_schedule WHERE job_key = ?", jobKey)));
            assertThat(one("SELECT state_reason FROM tenure.job_schedule WHERE job_key = ?", jobKey))
                    .isEqualTo(reason);
            assertThat(strings(
                            "SELECT reason FROM tenure.job_schedule_span WHERE job_key = ? AND state = 'PAUSED' "
                                    + "AND until_at IS NULL",
                            jobKey))
                    .containsExactly(reason);

            Instant resumedAt = Instant.now();
            resume.on(scheduler);
            await("the span of " + jobKey + " ends and its fires run again")
                    .atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> "ACTIVE".equals(one("SELECT state FROM tenure.job_schedule WHERE job_key = ?", jobKey))
                            && executions(job, resumedAt).stream()
                                            .filter(e -> !e.catchUp())
                                            .count()
                                    >= 2);
            assertThat(strings(
                            "SELECT reason FROM tenure.job_schedule_span WHERE job_key = ? AND until_at IS NOT NULL",
                            jobKey))
                    .containsExactly(reason);
            assertThat(
                            strings(
                                            "SELECT fire_key FROM tenure.job_runs WHERE job_key = ? AND status = 'MISSED'",
                                            jobKey)
                                    .stream()
                                    .map(Instant::parse)
                                    .filter(fire -> fire.isAfter(pausedAt))
                                    .toList())
                    .as("fires due after the pause recorded MISSED")
                    .isEmpty();
            List<String> lines = log.lines();
            assertThat(lines)
                    .as("no stack trace in the log")
                    .noneMatch(l -> l.matches("\\s+at [\\w.$/]+\\(.*\\)") || l.startsWith("Caused by"));
            assertThat(lines).as("no WARN in the log").noneMatch(l -> l.contains(" WARN "));
        } finally {
            scheduler.shutdown(true);
        }
    }

    /** The job's executions that started after {@code since}. */
    private static List<Execution> executions(JobKey job, Instant since) {
        return EXECUTIONS.getOrDefault(job.getGroup(), List.of()).stream()
                .filter(e -> e.startedAt().isAfter(since))
                .toList();
    }

    static JobDetail detail(JobKey job, boolean durable) {
        return JobBuilder.newJob(CountingJob.class)
                .withIdentity(job)
                .storeDurably(durable)
                .build();
    }

    static TriggerKey triggerKey(JobKey job) {
        return TriggerKey.triggerKey(job.getName(), job.getGroup());
    }

    /** Every second, in UTC, with Quartz's default misfire instruction (a late fire counts for its latest slot). */
    static Trigger trigger(JobKey job) {
        return TriggerBuilder.newTrigger()
                .withIdentity(triggerKey(job))
                .forJob(job)
                .withSchedule(CronScheduleBuilder.cronSchedule("* * * * * ?").inTimeZone(TimeZone.getTimeZone("UTC")))
                .build();
    }

    private Scheduler scheduler(String name) throws Exception {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", (jdbc() ? "jdbc-" : "ram-") + name);
        p.setProperty("org.quartz.threadPool.threadCount", "2");
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        p.setProperty("org.quartz.jobStore.misfireThreshold", "1000");
        if (jdbc()) {
            p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
            p.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
            p.setProperty("org.quartz.jobStore.dataSource", "qz");
            p.setProperty("org.quartz.dataSource.qz.provider", "hikaricp");
            p.setProperty("org.quartz.dataSource.qz.driver", "org.postgresql.Driver");
            p.setProperty("org.quartz.dataSource.qz.URL", db.jdbcUrl());
            p.setProperty("org.quartz.dataSource.qz.user", db.username());
            p.setProperty("org.quartz.dataSource.qz.password", db.password() == null ? "" : db.password());
            p.setProperty("org.quartz.dataSource.qz.maxConnections", "4");
        }
        return new StdSchedulerFactory(p).getScheduler();
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private String one(String sql, String arg) throws SQLException {
        List<String> all = strings(sql, arg);
        return all.isEmpty() ? null : all.get(0);
    }

    private List<String> strings(String sql, String arg) throws SQLException {
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
