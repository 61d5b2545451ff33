package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.Properties;
import java.util.TimeZone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.quartz.CronScheduleBuilder;
import org.quartz.DateBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.impl.StdSchedulerFactory;

/** What {@link QuartzPause} answers for each state of a job and its scheduler, on a RAM job store. */
class QuartzPauseTest {

    private static final JobKey JOB = JobKey.jobKey("tick", "g");
    private Scheduler scheduler;
    private QuartzPause pause;

    /** Never runs: the scheduler's triggers fire far in the future. */
    public static final class Idle implements Job {
        @Override
        public void execute(org.quartz.JobExecutionContext context) {}
    }

    @BeforeEach
    void create() throws SchedulerException {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", "pause-test");
        p.setProperty("org.quartz.threadPool.threadCount", "1");
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        scheduler = new StdSchedulerFactory(p).getScheduler();
        scheduler.addJob(
                JobBuilder.newJob(Idle.class).withIdentity(JOB).storeDurably().build(), false);
        pause = new QuartzPause(scheduler, JOB, () -> false);
    }

    @AfterEach
    void shutdown() throws SchedulerException {
        scheduler.shutdown();
    }

    private static Trigger nightly(String name) {
        return TriggerBuilder.newTrigger()
                .withIdentity(name, "g")
                .forJob(JOB)
                .withSchedule(CronScheduleBuilder.cronSchedule("0 0 2 * * ?").inTimeZone(TimeZone.getTimeZone("UTC")))
                .build();
    }

    private static Trigger once() {
        return TriggerBuilder.newTrigger()
                .withIdentity("once", "g")
                .forJob(JOB)
                .startAt(DateBuilder.futureDate(1, DateBuilder.IntervalUnit.HOUR))
                .build();
    }

    @Test
    void aJobThatIsNotDurable_readBetweenTheUnscheduleOfItsLastTriggerAndItsDelete_isGone_notUnscheduled()
            throws Exception {
        JobKey going = JobKey.jobKey("going", "g");
        scheduler.scheduleJob(
                JobBuilder.newJob(Idle.class).withIdentity(going).build(),
                TriggerBuilder.newTrigger()
                        .withIdentity("going", "g")
                        .withSchedule(CronScheduleBuilder.cronSchedule("0 0 2 * * ?"))
                        .build());
        // a JDBC job store unschedules the last trigger and deletes the job in one transaction, which the pause's reads
        // of the job and of its triggers can straddle: the job is read before it, its triggers after it
        Scheduler straddling = (Scheduler) java.lang.reflect.Proxy.newProxyInstance(
                Scheduler.class.getClassLoader(),
                new Class<?>[] {Scheduler.class},
                (proxy, method, args) -> method.getName().equals("getTriggersOfJob")
                        ? java.util.List.of()
                        : method.invoke(scheduler, args));
        assertThat(new QuartzPause(straddling, going, () -> false).pausedBecause())
                .contains("job g.going is not in the Quartz scheduler (deleted or unscheduled)");
    }

    @Test
    void activeJob_isNotPaused_andMayBeCaughtUp() throws SchedulerException {
        scheduler.scheduleJob(nightly("a"));
        scheduler.start();

        assertThat(pause.pausedBecause()).isEmpty();
        assertThat(pause.notRunnable()).isEmpty();
    }

    @Test
    void everyRecurringTriggerPaused_isPaused_oneActiveTriggerIsNot() throws SchedulerException {
        scheduler.scheduleJob(nightly("a"));
        scheduler.scheduleJob(nightly("b"));
        scheduler.scheduleJob(once());
        scheduler.start();

        scheduler.pauseTrigger(TriggerKey.triggerKey("a", "g"));
        assertThat(pause.pausedBecause())
                .as("one of two recurring triggers paused")
                .isEmpty();
        scheduler.pauseTrigger(TriggerKey.triggerKey("b", "g"));
        assertThat(pause.pausedBecause())
                .as("both paused, a one-shot trigger left")
                .contains(QuartzPause.PAUSED);
        scheduler.resumeJob(JOB);
        assertThat(pause.pausedBecause()).isEmpty();
    }

    @Test
    void durableJobWithoutRecurringTrigger_isUnscheduled_deletedJobIsNotInTheScheduler() throws SchedulerException {
        scheduler.scheduleJob(once());
        scheduler.start();

        assertThat(pause.pausedBecause()).contains(QuartzPause.UNSCHEDULED);
        scheduler.deleteJob(JOB);
        assertThat(pause.pausedBecause())
                .contains("job g.tick is not in the Quartz scheduler (deleted or unscheduled)");
    }

    @Test
    void standbyAfterStart_isPaused_aSchedulerNotStartedYetIsNot() throws SchedulerException {
        scheduler.scheduleJob(nightly("a"));
        assertThat(pause.pausedBecause()).as("not started yet").isEmpty();

        scheduler.start();
        scheduler.standby();
        assertThat(pause.pausedBecause()).contains(QuartzPause.STANDBY);
        assertThat(pause.notRunnable()).contains(QuartzPause.STANDBY);
    }

    @Test
    void standbyWhileShuttingDown_isNotPaused_butRunsNoCatchUp() throws SchedulerException {
        scheduler.scheduleJob(nightly("a"));
        scheduler.start();
        scheduler.standby(); // shutdown() stands by first, and may then wait for the running jobs
        QuartzPause stopping = new QuartzPause(scheduler, JOB, () -> true);

        assertThat(stopping.pausedBecause()).isEmpty();
        assertThat(stopping.notRunnable()).contains("the Quartz scheduler is shut down");
    }

    @Test
    void shutDownScheduler_isNotPaused_butRunsNoCatchUp() throws SchedulerException {
        scheduler.scheduleJob(nightly("a"));
        scheduler.start();
        scheduler.shutdown();

        assertThat(pause.pausedBecause()).isEmpty();
        assertThat(pause.notRunnable()).contains("the Quartz scheduler is shut down");
    }

    @Test
    void schedulerThatThrows_countsAsActive() {
        Scheduler broken = (Scheduler) Proxy.newProxyInstance(
                Scheduler.class.getClassLoader(), new Class<?>[] {Scheduler.class}, (proxy, method, args) -> {
                    throw new SchedulerException("the job store is unreachable");
                });

        assertThat(new QuartzPause(broken, JOB, () -> false).pausedBecause()).isEmpty();
        assertThat(new QuartzPause(broken, JOB, () -> false).notRunnable()).isEmpty();
    }
}
