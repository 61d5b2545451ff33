package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.Tenure;
import dev.tenure.metrics.MetricNames;
import dev.tenure.testkit.StderrCapture;
import dev.tenure.testkit.Timing;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quartz.CronScheduleBuilder;
import org.quartz.DateBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.impl.matchers.KeyMatcher;

/**
 * The schedule check ({@link ScheduleCheck}) on real schedulers, with real Valkey and Postgres: per-node RAM stores
 * (where a start time of the node's own is a per-node grid) and a clustered JDBC store (where it is not).
 */
class QuartzScheduleCheckIT {

    private static QuartzServers servers;
    static final List<String> ran = new CopyOnWriteArrayList<>();
    private final List<Scheduler> schedulers = new ArrayList<>();
    private final List<Tenure> tenures = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @BeforeAll
    static void start() throws Exception {
        servers = new QuartzServers(QuartzScheduleCheckIT.class, null);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @AfterEach
    void shutdown() throws SchedulerException {
        try {
            for (Scheduler s : schedulers) {
                s.shutdown(true);
            }
        } finally {
            tenures.forEach(Tenure::close);
            ran.clear();
        }
    }

    /** A coordination builder on a new Tenure (lease TTL 30 s), closed after the test. */
    private QuartzCoordination.Builder tenure() {
        Tenure tenure = servers.tenure(Duration.ofSeconds(30));
        tenures.add(tenure);
        return QuartzCoordination.builder(tenure).metrics(new MicrometerFireMetrics(registry));
    }

    private Scheduler ram(String name) throws SchedulerException {
        Scheduler s = QuartzServers.ramScheduler(name);
        schedulers.add(s);
        return s;
    }

    /** The start time this node picks for itself, as {@code startNow()} does (never on the second's grid). */
    private static Date nodeNow() {
        long now = System.currentTimeMillis();
        return new Date(now % 1000 == 0 ? now + 1 : now);
    }

    private static Trigger everySecond(String name, Date start) {
        return TriggerBuilder.newTrigger()
                .withIdentity(name, "sc")
                .startAt(start)
                .withSchedule(SimpleScheduleBuilder.repeatSecondlyForever())
                .build();
    }

    private static JobDetail job(String name) {
        return JobBuilder.newJob(RecordingJob.class).withIdentity(name, "sc").build();
    }

    private double warnings(String job, String reason) {
        Counter c = registry.find(MetricNames.QUARTZ_SCHEDULE_WARNINGS)
                .tags("job", "quartz:sc:" + job, "reason", reason)
                .counter();
        return c == null ? 0 : c.count();
    }

    private double allWarnings() {
        return registry.find(MetricNames.QUARTZ_SCHEDULE_WARNINGS).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    private double fires(String job, String outcome) {
        Counter c = registry.find(MetricNames.JOB_FIRES)
                .tags("job", "quartz:sc:" + job, "outcome", outcome)
                .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void warn_simpleTriggerStartedAtNodeTime_warnsAndCounts_alignedZonedAndVouchedDoNot() throws Exception {
        Scheduler s = ram("sc-warn");
        String zone = TimeZone.getDefault().getID().equals("Asia/Kathmandu") ? "America/Halifax" : "Asia/Kathmandu";
        s.scheduleJob(job("drift"), everySecond("drift", nodeNow()));
        s.scheduleJob(job("aligned"), everySecond("aligned", DateBuilder.evenSecondDateAfterNow()));
        s.scheduleJob(
                job("zoned"),
                TriggerBuilder.newTrigger()
                        .withIdentity("zoned", "sc")
                        .withSchedule(
                                CronScheduleBuilder.cronSchedule("0 0 2 * * ?").inTimeZone(TimeZone.getTimeZone(zone)))
                        .build());
        s.scheduleJob(job("vouched"), everySecond("vouched", nodeNow()));
        QuartzCoordination tenure = tenure().intendedSchedules(
                        KeyMatcher.keyEquals(TriggerKey.triggerKey("vouched", "sc")))
                .build();
        List<String> warned;
        try (StderrCapture log = new StderrCapture()) {
            tenure.registerListeners(s);
            s.scheduleJob(job("later"), everySecond("later", nodeNow())); // seen by the scheduler listener
            warned = log.lines().stream()
                    .filter(l -> l.contains("WARN") && l.contains("Tenure schedule check"))
                    .toList();
        }

        assertThat(warnings("drift", "simple_unaligned")).isEqualTo(1);
        assertThat(warnings("later", "simple_unaligned")).isEqualTo(1);
        assertThat(allWarnings())
                .as("none for the aligned, zoned cron and vouched triggers")
                .isEqualTo(2);
        assertThat(warned).hasSize(2);
        assertThat(warned.get(0))
                .contains(
                        "trigger sc.drift of job sc.drift",
                        "once per node per period",
                        "DateBuilder.evenMinuteDate",
                        "ScheduleCheck.WARN: its fires run as scheduled");
        assertThat(warned.get(1)).contains("trigger sc.later of job sc.later");
    }

    @Test
    void off_checksNothing() throws Exception {
        Scheduler s = ram("sc-off");
        s.scheduleJob(job("drift"), everySecond("drift", nodeNow()));
        QuartzCoordination tenure = tenure().scheduleCheck(ScheduleCheck.OFF).build();
        tenure.registerListeners(s);
        s.scheduleJob(job("later"), everySecond("later", nodeNow()));
        assertThat(allWarnings()).isZero();
    }

    @Test
    void refuse_atRegistration_throwsListingEverySuspectTrigger_listenersStayToSkipTheirFires() throws Exception {
        Scheduler s = ram("sc-refuse");
        s.scheduleJob(job("drift-a"), everySecond("drift-a", nodeNow()));
        s.scheduleJob(job("drift-b"), everySecond("drift-b", nodeNow()));
        s.scheduleJob(job("aligned"), everySecond("aligned", DateBuilder.evenSecondDateAfterNow()));
        QuartzCoordination tenure = tenure().scheduleCheck(ScheduleCheck.REFUSE).build();

        for (ThrowingCheck check : List.<ThrowingCheck>of(tenure::registerListeners, tenure::checkSchedules)) {
            assertThatThrownBy(() -> check.run(s)).isInstanceOfSatisfying(ScheduleRefusedException.class, e -> {
                assertThat(e.triggers())
                        .containsExactlyInAnyOrder(
                                TriggerKey.triggerKey("drift-a", "sc"), TriggerKey.triggerKey("drift-b", "sc"));
                assertThat(e.getMessage())
                        .contains(
                                "refuses 2 Quartz trigger(s)",
                                "trigger sc.drift-a of job sc.drift-a",
                                "trigger sc.drift-b of job sc.drift-b",
                                "DateBuilder.evenMinuteDate")
                        .doesNotContain("sc.aligned");
            });
        }
        assertThat(s.getListenerManager().getTriggerListener(QuartzCoordination.DEFAULT_NAME))
                .isNotNull();
        assertThat(warnings("drift-a", "simple_unaligned")).isEqualTo(2);
    }

    @Test
    void refuse_suspectTriggerScheduledLater_firesSkipped_alignedTriggerRuns_bothStyles() throws Exception {
        for (boolean factory : new boolean[] {false, true}) {
            Scheduler s = ram("sc-later-" + factory);
            QuartzCoordination tenure =
                    tenure().scheduleCheck(ScheduleCheck.REFUSE).build();
            if (factory) {
                s.setJobFactory(tenure.jobFactory());
                tenure.checkSchedules(s);
            } else {
                tenure.registerListeners(s);
            }
            s.start();
            String drift = "late-drift-" + factory;
            String aligned = "late-aligned-" + factory;
            s.scheduleJob(job(drift), everySecond(drift, nodeNow()));
            s.scheduleJob(job(aligned), everySecond(aligned, DateBuilder.evenSecondDateAfterNow()));

            await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() -> ran.stream().filter(aligned::equals).count() >= 2
                            && fires(drift, "skipped_schedule_refused") >= 2);
            assertThat(ran).as("factory=%s", factory).doesNotContain(drift).allMatch(aligned::equals);
            assertThat(warnings(drift, "simple_unaligned")).isEqualTo(1);
            assertThat(warnings(aligned, "simple_unaligned")).isZero();
            s.shutdown(true);
            ran.clear();
        }
    }

    @Test
    void clusteredJdbcStore_simpleTriggerStartedAtNodeTime_isOneSharedTrigger_notRefused() throws Exception {
        String password = servers.db.password() == null ? "" : servers.db.password();
        Scheduler s = new StdSchedulerFactory(
                        QuartzNode.properties("sc-jdbc", true, servers.db.jdbcUrl(), servers.db.username(), password))
                .getScheduler();
        schedulers.add(s);
        assertThat(s.getMetaData().isJobStoreClustered()).isTrue();
        s.scheduleJob(job("shared"), everySecond("shared", nodeNow()));

        tenure().scheduleCheck(ScheduleCheck.REFUSE).build().registerListeners(s);
        assertThat(allWarnings()).isZero();
    }

    /** {@code registerListeners} or {@code checkSchedules}. */
    private interface ThrowingCheck {
        void run(Scheduler scheduler) throws SchedulerException;
    }

    /** Records its name; a fire without a coordinated run is marked. */
    public static final class RecordingJob implements Job {
        @Override
        public void execute(JobExecutionContext context) {
            String name = context.getJobDetail().getKey().getName();
            ran.add(QuartzCoordination.contextOf(context).isPresent() ? name : name + " uncoordinated");
        }
    }
}
