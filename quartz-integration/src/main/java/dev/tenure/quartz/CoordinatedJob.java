package dev.tenure.quartz;

import org.quartz.InterruptableJob;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.UnableToInterruptJobException;

/**
 * A job wrapped by {@link CoordinatingJobFactory}: one acquire → claim → execute → finish → release scope. A fire this
 * node does not claim returns at once (Quartz sees a short, successful execution; the outcome is in the context and
 * the metrics). Interrupts are forwarded to the wrapped job.
 */
final class CoordinatedJob implements InterruptableJob {

    private final Job delegate;
    private final FireGuard guard;

    CoordinatedJob(Job delegate, FireGuard guard) {
        this.delegate = delegate;
        this.guard = guard;
    }

    Job delegate() {
        return delegate;
    }

    @Override
    public void execute(JobExecutionContext context) throws JobExecutionException {
        FireGuard.Entry entry = guard.enter(context);
        if (entry == FireGuard.Entry.SKIP) {
            return;
        }
        Throwable error = null;
        try {
            delegate.execute(context);
        } catch (JobExecutionException | RuntimeException | Error e) {
            error = e;
            throw e;
        } finally {
            if (entry == FireGuard.Entry.RUN) {
                guard.exit(context, error);
            }
        }
    }

    @Override
    public void interrupt() throws UnableToInterruptJobException {
        if (!(delegate instanceof InterruptableJob interruptable)) {
            throw new UnableToInterruptJobException(
                    "job class " + delegate.getClass().getName() + " does not implement InterruptableJob");
        }
        interruptable.interrupt();
    }
}
