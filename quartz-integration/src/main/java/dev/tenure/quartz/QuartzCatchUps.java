package dev.tenure.quartz;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.quartz.JobDataMap;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.listeners.JobListenerSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Catch-ups of missed fires of one scheduler's coordinated jobs. A catch-up is
 * {@link Scheduler#triggerJob(JobKey, JobDataMap)} with the fire key in the trigger's data, so it runs as a Quartz
 * execution of the job, through Tenure's job factory or listeners, as the missed fire ({@link FireKeys}), waiting for
 * the job like a recovery fire ({@code recoveryPolicy}). It returns once that execution ended. A job that is paused,
 * unscheduled or deleted, or whose scheduler is shut down, is not triggered: the catch-up returns without running it
 * ({@link QuartzPause}). As a job listener it sees the executions end; its callbacks never throw. Thread-safe.
 */
final class QuartzCatchUps extends JobListenerSupport {

    /** The trigger data key that carries a catch-up's fire key. */
    static final String FIRE_KEY = "dev.tenure.quartz.catchUpFireKey";
    /** How long a catch-up waits for its execution to end at most. */
    static final Duration LONGEST = Duration.ofMinutes(5);

    private static final Logger LOG = LoggerFactory.getLogger(QuartzCoordination.class);
    private static final long SLICE_MILLIS = 1_000;

    private final Scheduler scheduler;
    private final Map<String, CountDownLatch> running = new ConcurrentHashMap<>();

    QuartzCatchUps(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** A catch-up's one-shot trigger names its fire in its data. */
    static boolean isCatchUp(Trigger trigger) {
        return trigger != null
                && trigger.getJobDataMap() != null
                && trigger.getJobDataMap().containsKey(FIRE_KEY);
    }

    /**
     * Triggers the job as fire {@code fireKey} unless it cannot run now, and waits until that execution ended (or was
     * vetoed), at most {@link #LONGEST}, or until the scheduler is shut down or put in standby: the sweeper runs one
     * catch-up at a time, and catch-ups triggered all at once would only compete with each other and with the regular
     * fires. A scheduler not started yet runs the catch-up once it starts.
     *
     * @throws SchedulerException if Quartz refuses the trigger although the job can run
     */
    void run(JobKey job, QuartzPause pause, String fireKey) throws SchedulerException, InterruptedException {
        if (cannotRun(job, pause, fireKey)) {
            return;
        }
        String id = job + "\n" + fireKey;
        CountDownLatch ended = new CountDownLatch(1);
        running.put(id, ended);
        try {
            try {
                scheduler.triggerJob(job, new JobDataMap(Map.of(FIRE_KEY, fireKey)));
            } catch (SchedulerException e) {
                if (cannotRun(job, pause, fireKey)) {
                    return; // paused, deleted or shut down since the check
                }
                throw e;
            }
            await(ended, job, fireKey);
        } finally {
            running.remove(id, ended);
        }
    }

    private static boolean cannotRun(JobKey job, QuartzPause pause, String fireKey) {
        Optional<String> why = pause.notRunnable();
        why.ifPresent(w -> LOG.debug("Tenure does not catch up fire {} of Quartz job {}: {}", fireKey, job, w));
        return why.isPresent();
    }

    private void await(CountDownLatch ended, JobKey job, String fireKey)
            throws SchedulerException, InterruptedException {
        long deadline = System.nanoTime() + LONGEST.toNanos();
        while (!ended.await(SLICE_MILLIS, TimeUnit.MILLISECONDS)) {
            if (scheduler.isShutdown() || (scheduler.isInStandbyMode() && scheduler.isStarted())) {
                LOG.debug(
                        "the scheduler of Quartz job {} stopped firing before the catch-up of fire {} ended; the "
                                + "sweeper goes on",
                        job,
                        fireKey);
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                LOG.info(
                        "the catch-up of fire {} of Quartz job {} still runs after {}; the sweeper goes on",
                        fireKey,
                        job,
                        LONGEST);
                return;
            }
        }
    }

    @Override
    public String getName() {
        return "tenure-catch-ups-" + System.identityHashCode(this);
    }

    @Override
    public void jobWasExecuted(JobExecutionContext context, JobExecutionException error) {
        ended(context);
    }

    @Override
    public void jobExecutionVetoed(JobExecutionContext context) {
        ended(context);
    }

    /** Ends a catch-up's wait when its execution ended or was vetoed. Never throws. */
    private void ended(JobExecutionContext context) {
        try {
            if (isCatchUp(context.getTrigger())) {
                CountDownLatch l = running.get(context.getJobDetail().getKey() + "\n"
                        + context.getTrigger().getJobDataMap().getString(FIRE_KEY));
                if (l != null) {
                    l.countDown();
                }
            }
        } catch (Throwable t) {
            LOG.debug("Tenure could not read a finished catch-up", t);
        }
    }
}
