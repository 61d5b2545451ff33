package dev.tenure.quartz;

import dev.tenure.MissedFirePolicy;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 * through {@link QuartzCatchUps}. The policy of a job whose triggers never fire late is SKIP ({@link MisfireRule}). The
 * listener callbacks never throw.
 */
final class QuartzSchedules extends SchedulerListenerSupport {

    private static final Logger LOG = LoggerFactory.getLogger(QuartzCoordination.class);

    private final QuartzCoordination config;
    private final Tenure tenure;
    private final Scheduler scheduler;
    private final QuartzCatchUps catchUps;
    /** The recurring triggers of the jobs registered last, so that an unscheduled one names its job. */
    private final Map<TriggerKey, JobKey> registered = new ConcurrentHashMap<>();
    /** The Tenure job keys registered with SKIP because their triggers never fire late (logged once each). */
    private final Set<String> neverLate = ConcurrentHashMap.newKeySet();

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
        // the jobs there are now, in one bulk registration (a few statements per thousand jobs)
        List<Prepared> now = new ArrayList<>();
        for (JobKey job : scheduler.getJobKeys(GroupMatcher.anyJobGroup())) {
            watch.prepare(job).ifPresent(now::add);
        }
        tenure.registerAll(now.stream().map(Prepared::scheduled).toList());
        List<String> neverLate = new ArrayList<>();
        now.forEach(p -> watch.registered(p).ifPresent(neverLate::add));
        logNeverLate(neverLate);
        LOG.info(tenure.scheduledJobsSummary());
    }

    /**
     * Registers the job's recurring triggers as its schedule, if it is coordinated and has any.
     *
     * @return the job's Tenure key if it is registered with SKIP for its triggers now and was not before
     */
    private Optional<String> register(JobKey job) throws SchedulerException {
        Optional<Prepared> p = prepare(job);
        if (p.isEmpty()) {
            return Optional.empty();
        }
        tenure.register(p.get().scheduled());
        return registered(p.get());
    }

    /** A Quartz job's registration as it is about to be made: the job, its recurring triggers, its ScheduledJob. */
    private record Prepared(JobKey job, List<Trigger> recurring, ScheduledJob scheduled) {}

    /** The job's registration, if it is coordinated and has recurring triggers; nothing registered yet. */
    private Optional<Prepared> prepare(JobKey job) throws SchedulerException {
        if (!config.coordinates(job)) {
            return Optional.empty();
        }
        List<Trigger> recurring = scheduler.getTriggersOfJob(job).stream()
                .filter(QuartzSchedule::recurring)
                .map(t -> (Trigger) t)
                .toList();
        if (recurring.isEmpty()) {
            return Optional.empty(); // its last registration stays: its pause check says why it has no fires
        }
        String key = config.jobKey(job);
        MissedFirePolicy policy = MisfireRule.policyFor(config.missedFires(), recurring);
        QuartzPause pause = new QuartzPause(scheduler, job, () -> shuttingDown);
        return Optional.of(new Prepared(
                job,
                recurring,
                new ScheduledJob(
                        key,
                        new QuartzSchedule(recurring),
                        policy,
                        fire -> catchUps.run(job, pause, fire),
                        "quartz",
                        pause)));
    }

    /**
     * Keeps what a registration made: which triggers belong to the job, and whether it never fires late.
     *
     * @return the job's Tenure key if it is registered with SKIP for its triggers now and was not before
     */
    private Optional<String> registered(Prepared p) {
        registered.values().removeIf(p.job()::equals);
        p.recurring().forEach(t -> registered.put(t.getKey(), p.job()));
        String key = p.scheduled().jobKey();
        if (p.scheduled().policy().equals(config.missedFires())) {
            neverLate.remove(key);
            return Optional.empty();
        }
        return neverLate.add(key) ? Optional.of(key) : Optional.empty();
    }

    private static void logNeverLate(List<String> jobs) {
        if (!jobs.isEmpty()) {
            LOG.info(
                    "Tenure: the recurring triggers of Quartz job(s) {} never fire late (misfire instruction DO_NOTHING "
                            + "or RESCHEDULE_NEXT_WITH_*): their missed fires are recorded MISSED, never caught up "
                            + "(missed-fire policy SKIP instead of CATCH_UP)",
                    jobs);
        }
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
            register(job).ifPresent(key -> logNeverLate(List.of(key)));
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
