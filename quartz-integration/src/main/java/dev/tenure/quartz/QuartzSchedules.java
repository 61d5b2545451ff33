package dev.tenure.quartz;

import dev.tenure.MissedFirePolicy;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import org.quartz.JobDataMap;
import org.quartz.JobKey;
import org.quartz.ListenerManager;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerKey;
import org.quartz.impl.matchers.GroupMatcher;
import org.quartz.listeners.SchedulerListenerSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;

/**
 * Records the schedules of coordinated Quartz jobs with {@link Tenure#register}: those already in the scheduler when
 * installed, and again whenever a trigger is scheduled or unscheduled. A catch-up of a missed fire is
 * {@link Scheduler#triggerJob(JobKey, JobDataMap)} with the fire key in the trigger's data, so it runs as a Quartz
 * execution of the job, through Tenure's job factory or listeners, as the missed fire ({@link FireKeys}). The
 * listener callbacks never throw.
 */
final class QuartzSchedules extends SchedulerListenerSupport {

    /** The trigger data key that carries a catch-up's fire key. */
    static final String CATCH_UP_FIRE_KEY = "dev.tenure.quartz.catchUpFireKey";
    private static final Logger LOG = LoggerFactory.getLogger(QuartzCoordination.class);

    private final QuartzCoordination config;
    private final Tenure tenure;
    private final Scheduler scheduler;

    private QuartzSchedules(QuartzCoordination config, Tenure tenure, Scheduler scheduler) {
        this.config = config;
        this.tenure = tenure;
        this.scheduler = scheduler;
    }

    /** Registers the coordinated jobs of {@code scheduler} now and on every change of their triggers (once per config). */
    static void install(QuartzCoordination config, Tenure tenure, MissedFirePolicy policy, Scheduler scheduler)
            throws SchedulerException {
        ListenerManager listeners = scheduler.getListenerManager();
        if (listeners.getSchedulerListeners().stream().anyMatch(l -> l instanceof QuartzSchedules s && s.config == config)) {
            return;
        }
        QuartzSchedules watch = new QuartzSchedules(config, tenure, scheduler);
        listeners.addSchedulerListener(watch);
        for (JobKey job : scheduler.getJobKeys(GroupMatcher.anyJobGroup())) {
            watch.register(job, policy);
        }
        LOG.info(tenure.scheduledJobsSummary());
    }

    private void register(JobKey job, MissedFirePolicy policy) throws SchedulerException {
        if (!config.coordinates(job)) {
            return;
        }
        List<Trigger> recurring = scheduler.getTriggersOfJob(job).stream().filter(QuartzSchedule::recurring)
                .map(t -> (Trigger) t).toList();
        if (recurring.isEmpty()) {
            return;
        }
        tenure.register(new ScheduledJob(config.jobKey(job), new QuartzSchedule(recurring), policy,
                fireKey -> scheduler.triggerJob(job, new JobDataMap(Map.of(CATCH_UP_FIRE_KEY, fireKey))), "quartz"));
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
            LOG.warn("Tenure could not record the schedule of Quartz job {}: its missed fires are not accounted for "
                    + "until it is recorded", job, t);
        }
    }
}
