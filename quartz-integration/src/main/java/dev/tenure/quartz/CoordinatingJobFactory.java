package dev.tenure.quartz;

import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.Scheduler;
import org.quartz.spi.JobFactory;
import org.quartz.spi.TriggerFiredBundle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decorates a {@link JobFactory}: every coordinated job it creates is wrapped in a {@link CoordinatedJob}. It never
 * throws from {@link #newJob} (Quartz would put all the job's triggers in ERROR state): if the wrapped factory fails,
 * the fire gets a job that reports that failure as a {@link JobExecutionException} when it runs. All Valkey and
 * database work happens in the wrapper's {@code execute}, none here.
 */
final class CoordinatingJobFactory implements JobFactory {

    private static final Logger LOG = LoggerFactory.getLogger(QuartzCoordination.class);

    private final JobFactory delegate;
    private final FireGuard guard;

    CoordinatingJobFactory(JobFactory delegate, FireGuard guard) {
        this.delegate = delegate;
        this.guard = guard;
    }

    @Override
    public Job newJob(TriggerFiredBundle bundle, Scheduler scheduler) {
        Job job;
        try {
            job = delegate.newJob(bundle, scheduler);
        } catch (Throwable t) {
            LOG.error(
                    "the job factory could not create job {}",
                    bundle.getJobDetail().getKey(),
                    t);
            return new FailedJob(t);
        }
        return guard.coordinates(bundle.getJobDetail().getKey()) ? new CoordinatedJob(job, guard) : job;
    }

    /** Stands in for a job the wrapped factory could not create: its fire fails (and is not coordinated). */
    private record FailedJob(Throwable cause) implements Job {
        @Override
        public void execute(JobExecutionContext context) throws JobExecutionException {
            throw new JobExecutionException(
                    "could not create an instance of job "
                            + context.getJobDetail().getKey() + ": " + cause,
                    cause,
                    false);
        }
    }
}
