package dev.tenure.quartz;

import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.core.JobExecutionProcessException;
import org.quartz.listeners.JobListenerSupport;
import org.quartz.listeners.SchedulerListenerSupport;

/**
 * Finishes what {@link CoordinatingTriggerListener} claimed: records the outcome and releases the leases in
 * {@link #jobWasExecuted}, and gives the fire back in {@link #jobExecutionVetoed} when another listener vetoed it
 * after ours claimed it. Never throws.
 */
final class CoordinatingJobListener extends JobListenerSupport {

    private final String name;
    private final FireGuard guard;

    CoordinatingJobListener(String name, FireGuard guard) {
        this.name = name;
        this.guard = guard;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public void jobWasExecuted(JobExecutionContext context, JobExecutionException jobException) {
        guard.exit(context, jobException);
    }

    @Override
    public void jobExecutionVetoed(JobExecutionContext context) {
        guard.vetoedElsewhere(context);
    }

    /**
     * When another listener throws, Quartz abandons the fire without calling the job listeners (Quartz #918): this
     * scheduler listener finishes the claimed run from the context attached to the error, so the job is not held
     * until the process exits.
     */
    static final class ListenerErrors extends SchedulerListenerSupport {

        private final FireGuard guard;

        ListenerErrors(FireGuard guard) {
            this.guard = guard;
        }

        @Override
        public void schedulerError(String msg, org.quartz.SchedulerException cause) {
            if (cause instanceof JobExecutionProcessException e && e.getJobExecutionContext() != null) {
                guard.exit(e.getJobExecutionContext(), e);
            }
        }
    }
}
