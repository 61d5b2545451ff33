package dev.tenure.quartz;

import dev.tenure.ScheduledJob;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.quartz.JobDetail;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.Trigger.TriggerState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a coordinated Quartz job is paused, as Tenure's sweeper asks before it judges the job's due fires and before
 * each catch-up: an operator's intent wins over catch-ups. The reasons, first match:
 * <ul>
 * <li>{@value #STANDBY}: {@code standby()} after the scheduler started, unless it is shutting down. A scheduler that
 *     was never started is not paused (the fires an outage missed are caught up once it starts), nor is one that stands
 *     by while it or its JVM shuts down: {@code shutdown()} stands by first, Spring's {@code SchedulerFactoryBean}
 *     stands by at every shutdown, and a pause recorded then would excuse the fires due until a process runs the job
 *     again.</li>
 * <li>{@code job <key> is not in the Quartz scheduler (deleted or unscheduled)}: the job was deleted, or it was not
 *     durable and its last trigger was unscheduled.</li>
 * <li>{@value #PAUSED}: every recurring trigger of the job is PAUSED ({@code pauseJob}, {@code pauseAll},
 *     {@code pauseTrigger}, {@code pauseTriggers}).</li>
 * <li>{@value #UNSCHEDULED}: a durable job without a recurring trigger.</li>
 * </ul>
 * A scheduler that is shut down is not a pause either: its process is stopping, and the fires due while no process runs
 * the job stay due, for the next sweeper to catch up or record MISSED. A catch-up is not triggered in any of these
 * states ({@link #notRunnable}). Every answer reads the scheduler (with a JDBC job store, a few queries). Never throws:
 * a fault counts as active, logged at DEBUG. Thread-safe.
 *
 * @param shuttingDown true once the scheduler's {@code shutdown()} began (a scheduler listener sees it)
 */
record QuartzPause(Scheduler scheduler, JobKey job, BooleanSupplier shuttingDown) implements ScheduledJob.Pause {

    static final String STANDBY = "the Quartz scheduler is in standby";
    static final String PAUSED = "paused in Quartz";
    static final String UNSCHEDULED = "unscheduled in Quartz";

    private static final Logger LOG = LoggerFactory.getLogger(QuartzCoordination.class);

    @Override
    public Optional<String> pausedBecause() {
        try {
            return Optional.ofNullable(why());
        } catch (SchedulerException | RuntimeException e) {
            LOG.debug("Tenure could not read whether Quartz job {} is paused; it counts as active", job, e);
            return Optional.empty();
        }
    }

    /**
     * Why a catch-up of the job cannot run now: it is paused, or its scheduler is shut down or stands by (whatever the
     * reason: a catch-up triggered then would wait for the scheduler, or run after the operator's standby ended).
     */
    Optional<String> notRunnable() {
        try {
            if (scheduler.isShutdown() || shuttingDown.getAsBoolean()) {
                return Optional.of("the Quartz scheduler is shut down");
            }
            if (scheduler.isInStandbyMode() && scheduler.isStarted()) {
                return Optional.of(STANDBY);
            }
        } catch (SchedulerException | RuntimeException e) {
            LOG.debug("Tenure could not read whether the scheduler of Quartz job {} runs", job, e);
        }
        return pausedBecause();
    }

    private @Nullable String why() throws SchedulerException {
        if (scheduler.isShutdown() || shuttingDown.getAsBoolean()) {
            return null;
        }
        if (scheduler.isInStandbyMode() && scheduler.isStarted()) {
            return jvmShuttingDown() ? null : STANDBY;
        }
        JobDetail detail = scheduler.getJobDetail(job);
        if (detail == null) {
            return gone();
        }
        List<? extends Trigger> triggers = scheduler.getTriggersOfJob(job);
        if (triggers.isEmpty() && !detail.isDurable()) {
            // read between the unschedule of its last trigger and the delete of the job, which a JDBC job store does in
            // one transaction that these two reads straddle: the job is going
            return gone();
        }
        boolean paused = false;
        for (Trigger t : triggers) {
            if (!QuartzSchedule.recurring(t)) {
                continue;
            }
            TriggerState state = scheduler.getTriggerState(t.getKey());
            if (state == TriggerState.PAUSED) {
                paused = true;
            } else if (state != TriggerState.NONE && state != TriggerState.COMPLETE) {
                return null; // NORMAL, BLOCKED or ERROR: it fires, or fails, as scheduled
            }
        }
        return paused ? PAUSED : UNSCHEDULED;
    }

    private String gone() {
        return "job " + job + " is not in the Quartz scheduler (deleted or unscheduled)";
    }

    /** True once the JVM runs its shutdown hooks: it then refuses new ones. */
    private static boolean jvmShuttingDown() {
        Thread probe = new Thread(() -> {}, "tenure-shutdown-probe");
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }
}
