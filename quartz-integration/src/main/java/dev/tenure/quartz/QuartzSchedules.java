package dev.tenure.quartz;

import dev.tenure.MissedFirePolicy;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.quartz.JobDataMap;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.JobKey;
import org.quartz.ListenerManager;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerKey;
import org.quartz.impl.matchers.EverythingMatcher;
import org.quartz.impl.matchers.GroupMatcher;
import org.quartz.listeners.JobListenerSupport;
import org.quartz.listeners.SchedulerListenerSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the schedules of coordinated Quartz jobs with {@link Tenure#register}: those already in the scheduler when
 * installed, and again whenever a trigger is scheduled or unscheduled. A catch-up of a missed fire is
 * {@link Scheduler#triggerJob(JobKey, JobDataMap)} with the fire key in the trigger's data, so it runs as a Quartz
 * execution of the job, through Tenure's job factory or listeners, as the missed fire ({@link FireKeys}), waiting for the
 * job like a recovery fire ({@code recoveryPolicy}); the catch-up returns once that execution ended. The listener
 * callbacks never throw.
 */
final class QuartzSchedules extends SchedulerListenerSupport {

    /** The trigger data key that carries a catch-up's fire key. */
    static final String CATCH_UP_FIRE_KEY = "dev.tenure.quartz.catchUpFireKey";

    private static final Logger LOG = LoggerFactory.getLogger(QuartzCoordination.class);
    /** How long a catch-up waits for its execution to end at most. */
    static final Duration LONGEST_CATCH_UP = Duration.ofMinutes(5);

    private final QuartzCoordination config;
    private final Tenure tenure;
    private final Scheduler scheduler;
    private final Map<String, CountDownLatch> running = new ConcurrentHashMap<>();

    private QuartzSchedules(QuartzCoordination config, Tenure tenure, Scheduler scheduler) {
        this.config = config;
        this.tenure = tenure;
        this.scheduler = scheduler;
    }

    /** Registers the coordinated jobs of {@code scheduler} now and on every change of their triggers (once per config). */
    static void install(QuartzCoordination config, Tenure tenure, MissedFirePolicy policy, Scheduler scheduler)
            throws SchedulerException {
        ListenerManager listeners = scheduler.getListenerManager();
        if (listeners.getSchedulerListeners().stream()
                .anyMatch(l -> l instanceof QuartzSchedules s && s.config == config)) {
            return;
        }
        QuartzSchedules watch = new QuartzSchedules(config, tenure, scheduler);
        listeners.addSchedulerListener(watch);
        listeners.addJobListener(watch.new CatchUpEnds(), EverythingMatcher.allJobs());
        for (JobKey job : scheduler.getJobKeys(GroupMatcher.anyJobGroup())) {
            watch.register(job, policy);
        }
        LOG.info(tenure.scheduledJobsSummary());
    }

    private void register(JobKey job, MissedFirePolicy policy) throws SchedulerException {
        if (!config.coordinates(job)) {
            return;
        }
        List<Trigger> recurring = scheduler.getTriggersOfJob(job).stream()
                .filter(QuartzSchedule::recurring)
                .map(t -> (Trigger) t)
                .toList();
        if (recurring.isEmpty()) {
            return;
        }
        tenure.register(new ScheduledJob(
                config.jobKey(job), new QuartzSchedule(recurring), policy, fireKey -> catchUp(job, fireKey), "quartz"));
    }

    /** A catch-up's one-shot trigger names its fire in its data. */
    static boolean isCatchUp(Trigger trigger) {
        return trigger != null
                && trigger.getJobDataMap() != null
                && trigger.getJobDataMap().containsKey(CATCH_UP_FIRE_KEY);
    }

    /**
     * Triggers the job as fire {@code fireKey} and waits until that execution ended (or was vetoed), at most
     * {@link #LONGEST_CATCH_UP}: the sweeper runs one catch-up at a time, and catch-ups triggered all at once would
     * only compete with each other and with the regular fires.
     */
    private void catchUp(JobKey job, String fireKey) throws SchedulerException, InterruptedException {
        String id = job + "\n" + fireKey;
        CountDownLatch ended = new CountDownLatch(1);
        running.put(id, ended);
        try {
            scheduler.triggerJob(job, new JobDataMap(Map.of(CATCH_UP_FIRE_KEY, fireKey)));
            if (!ended.await(LONGEST_CATCH_UP.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.info(
                        "the catch-up of fire {} of Quartz job {} still runs after {}; the sweeper goes on",
                        fireKey,
                        job,
                        LONGEST_CATCH_UP);
            }
        } finally {
            running.remove(id, ended);
        }
    }

    /** Ends a catch-up's wait when its execution ended or was vetoed. Never throws. */
    private final class CatchUpEnds extends JobListenerSupport {
        @Override
        public String getName() {
            return "tenure-catch-ups-" + System.identityHashCode(QuartzSchedules.this);
        }

        @Override
        public void jobWasExecuted(JobExecutionContext context, JobExecutionException error) {
            ended(context);
        }

        @Override
        public void jobExecutionVetoed(JobExecutionContext context) {
            ended(context);
        }

        private void ended(JobExecutionContext context) {
            try {
                if (isCatchUp(context.getTrigger())) {
                    CountDownLatch l = running.get(context.getJobDetail().getKey() + "\n"
                            + context.getTrigger().getJobDataMap().getString(CATCH_UP_FIRE_KEY));
                    if (l != null) {
                        l.countDown();
                    }
                }
            } catch (Throwable t) {
                LOG.debug("Tenure could not read a finished catch-up", t);
            }
        }
    }

    @Override
    public void jobScheduled(Trigger trigger) {
        changed(trigger.getJobKey());
    }

    @Override
    public void jobUnscheduled(TriggerKey key) {
        try {
            Trigger t = scheduler.getTrigger(key);
            if (t != null) {
                changed(t.getJobKey());
            }
        } catch (Throwable e) {
            LOG.debug("Tenure could not read unscheduled trigger {}", key, e);
        }
    }

    private void changed(JobKey job) {
        try {
            register(job, config.missedFires());
        } catch (Throwable t) {
            LOG.warn(
                    "Tenure could not record the schedule of Quartz job {}: its missed fires are not accounted for "
                            + "until it is recorded",
                    job,
                    t);
        }
    }
}
