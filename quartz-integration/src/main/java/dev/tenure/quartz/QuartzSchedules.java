package dev.tenure.quartz;

import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.quartz.JobKey;
import org.quartz.ListenerManager;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerKey;
import org.quartz.impl.matchers.EverythingMatcher;
import org.quartz.impl.matchers.GroupMatcher;
import org.quartz.listeners.SchedulerListenerSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the schedules of coordinated Quartz jobs with {@link Tenure#register}: those already in the scheduler when
 * installed, and again whenever a recurring trigger of theirs is scheduled, unscheduled or finalized. Each job is
 * registered with a {@link QuartzPause}, which reads the scheduler whenever the sweeper asks: a job that is paused,
 * unscheduled or deleted in Quartz, or whose scheduler stands by, is not caught up, and the ledger keeps the span. A job
 * left without a recurring trigger keeps its last registration, which its pause check then answers. Catch-ups run
 * through {@link QuartzCatchUps}. The listener callbacks never throw.
 */
final class QuartzSchedules extends SchedulerListenerSupport {

    private static final Logger LOG = LoggerFactory.getLogger(QuartzCoordination.class);

    private final QuartzCoordination config;
    private final Tenure tenure;
    private final Scheduler scheduler;
    private final QuartzCatchUps catchUps;
    /** The recurring triggers of the jobs registered last, so that an unscheduled one names its job. */
    private final Map<TriggerKey, JobKey> registered = new ConcurrentHashMap<>();

    private volatile boolean shuttingDown;

    private QuartzSchedules(QuartzCoordination config, Tenure tenure, Scheduler scheduler) {
        this.config = config;
        this.tenure = tenure;
        this.scheduler = scheduler;
        this.catchUps = new QuartzCatchUps(scheduler);
    }

    /** Registers the coordinated jobs of {@code scheduler} now and on every change of their triggers (once per config). */
    static void install(QuartzCoordination config, Tenure tenure, Scheduler scheduler) throws SchedulerException {
        ListenerManager listeners = scheduler.getListenerManager();
        if (listeners.getSchedulerListeners().stream()
                .anyMatch(l -> l instanceof QuartzSchedules s && s.config == config)) {
            return;
        }
        QuartzSchedules watch = new QuartzSchedules(config, tenure, scheduler);
        listeners.addSchedulerListener(watch);
        listeners.addJobListener(watch.catchUps, EverythingMatcher.allJobs());
        for (JobKey job : scheduler.getJobKeys(GroupMatcher.anyJobGroup())) {
            watch.register(job);
        }
        LOG.info(tenure.scheduledJobsSummary());
    }

    /** Registers the job's recurring triggers as its schedule, if it is coordinated and has any. */
    private void register(JobKey job) throws SchedulerException {
        if (!config.coordinates(job)) {
            return;
        }
        List<Trigger> recurring = scheduler.getTriggersOfJob(job).stream()
                .filter(QuartzSchedule::recurring)
                .map(t -> (Trigger) t)
                .toList();
        if (recurring.isEmpty()) {
            return; // its last registration stays: its pause check says why it has no fires
        }
        QuartzPause pause = new QuartzPause(scheduler, job, () -> shuttingDown);
        tenure.register(new ScheduledJob(
                config.jobKey(job),
                new QuartzSchedule(recurring),
                config.missedFires(),
                fire -> catchUps.run(job, pause, fire),
                "quartz",
                pause));
        registered.values().removeIf(job::equals);
        recurring.forEach(t -> registered.put(t.getKey(), job));
    }

    /** A new recurring trigger changes the job's schedule; a one-shot trigger (a catch-up, say) does not. */
    @Override
    public void jobScheduled(Trigger trigger) {
        try {
            if (QuartzSchedule.recurring(trigger) && !QuartzCatchUps.isCatchUp(trigger)) {
                changed(trigger.getJobKey());
            }
        } catch (Throwable t) {
            LOG.debug("Tenure could not read scheduled trigger {}", trigger, t);
        }
    }

    @Override
    public void jobUnscheduled(TriggerKey key) {
        JobKey job = registered.remove(key);
        if (job != null) {
            changed(job);
        }
    }

    /** A trigger that will not fire again left the scheduler. */
    @Override
    public void triggerFinalized(Trigger trigger) {
        try {
            JobKey job = registered.remove(trigger.getKey());
            if (job != null) {
                changed(job);
            }
        } catch (Throwable t) {
            LOG.debug("Tenure could not read finalized trigger {}", trigger, t);
        }
    }

    /** The job keeps its registration: its pause check answers that it is not in the scheduler. */
    @Override
    public void jobDeleted(JobKey job) {
        registered.values().removeIf(job::equals);
    }

    /** From now on a standby is the scheduler's end, not a pause. */
    @Override
    public void schedulerShuttingdown() {
        shuttingDown = true;
    }

    private void changed(JobKey job) {
        try {
            register(job);
        } catch (Throwable t) {
            LOG.warn(
                    "Tenure could not record the schedule of Quartz job {}: its missed fires are not accounted for "
                            + "until it is recorded: {}",
                    job,
                    t.toString());
            LOG.debug("the failed registration of Quartz job {}", job, t);
        }
    }
}
