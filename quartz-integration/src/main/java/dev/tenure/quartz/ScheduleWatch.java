package dev.tenure.quartz;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TimeZone;
import java.util.function.Predicate;
import org.quartz.JobExecutionContext;
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

/**
 * Runs the {@link ScheduleCheck} on coordinated triggers ({@link ScheduleRisk} decides): on those already scheduled
 * ({@link #install}), as a scheduler listener on those scheduled later ({@link #jobScheduled}), and, under
 * {@link ScheduleCheck#REFUSE}, at each of their fires ({@link #refusal}). Each suspect trigger found at registration
 * or scheduling is a WARN line and a {@link FireMetrics#scheduleWarning} count. The listener callback never throws.
 */
final class ScheduleWatch extends SchedulerListenerSupport {

    private static final Logger LOG = LoggerFactory.getLogger(QuartzCoordination.class);

    private final QuartzCoordination config;
    private final Predicate<JobKey> coordinated;
    private final boolean clustered;

    private ScheduleWatch(QuartzCoordination config, Predicate<JobKey> coordinated, boolean clustered) {
        this.config = config;
        this.coordinated = coordinated;
        this.clustered = clustered;
    }

    /**
     * Watches the triggers {@code scheduler} schedules from now on (once per configuration), then checks the triggers
     * of coordinated jobs already there.
     *
     * @throws ScheduleRefusedException under {@link ScheduleCheck#REFUSE}, listing every suspect trigger
     */
    static void install(QuartzCoordination config, Predicate<JobKey> coordinated, Scheduler scheduler)
            throws SchedulerException {
        if (config.scheduleCheck() == ScheduleCheck.OFF) {
            return;
        }
        boolean clustered = scheduler.getMetaData().isJobStoreClustered();
        ListenerManager listeners = scheduler.getListenerManager();
        if (listeners.getSchedulerListeners().stream()
                .noneMatch(l -> l instanceof ScheduleWatch w && w.config == config)) {
            listeners.addSchedulerListener(new ScheduleWatch(config, coordinated, clustered));
        }
        List<TriggerKey> suspects = new ArrayList<>();
        List<String> explanations = new ArrayList<>();
        for (JobKey job : scheduler.getJobKeys(GroupMatcher.anyJobGroup())) {
            if (!coordinated.test(job)) {
                continue;
            }
            for (Trigger trigger : scheduler.getTriggersOfJob(job)) {
                risk(config, trigger, clustered).ifPresent(risk -> {
                    report(config, trigger, risk);
                    suspects.add(trigger.getKey());
                    explanations.add(risk.explain(trigger));
                });
            }
        }
        if (config.scheduleCheck() == ScheduleCheck.REFUSE && !suspects.isEmpty()) {
            throw new ScheduleRefusedException(suspects, explanations);
        }
    }

    /** Under {@link ScheduleCheck#REFUSE}: why the trigger of this (coordinated) fire is refused, if it is. */
    static Optional<ScheduleRisk> refusal(QuartzCoordination config, JobExecutionContext context)
            throws SchedulerException {
        if (config.scheduleCheck() != ScheduleCheck.REFUSE) {
            return Optional.empty();
        }
        Scheduler scheduler = context.getScheduler();
        boolean clustered = scheduler != null && scheduler.getMetaData().isJobStoreClustered();
        return risk(config, context.getTrigger(), clustered);
    }

    @Override
    public void jobScheduled(Trigger trigger) {
        try {
            if (coordinated.test(trigger.getJobKey())) {
                risk(config, trigger, clustered).ifPresent(risk -> report(config, trigger, risk));
            }
        } catch (Throwable t) {
            LOG.warn("Tenure could not check the schedule of Quartz trigger {}", trigger.getKey(), t);
        }
    }

    private static Optional<ScheduleRisk> risk(QuartzCoordination config, Trigger trigger, boolean clustered) {
        if (config.intendedSchedule(trigger.getKey()) || QuartzCatchUps.isCatchUp(trigger)) {
            return Optional.empty();
        }
        return ScheduleRisk.of(trigger, clustered, TimeZone.getDefault());
    }

    private static void report(QuartzCoordination config, Trigger trigger, ScheduleRisk risk) {
        boolean refuse = config.scheduleCheck() == ScheduleCheck.REFUSE;
        LOG.warn(
                "Tenure schedule check: {} ({})",
                risk.explain(trigger),
                refuse
                        ? "ScheduleCheck.REFUSE: its fires are skipped"
                        : "ScheduleCheck.WARN: its fires run as scheduled");
        try {
            config.metrics().scheduleWarning(config.jobKey(trigger.getJobKey()), risk.tag());
        } catch (Throwable ignored) {
            // metrics never break a registration or a Quartz callback
        }
    }
}
