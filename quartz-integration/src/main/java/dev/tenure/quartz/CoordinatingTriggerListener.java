package dev.tenure.quartz;

import org.quartz.JobExecutionContext;
import org.quartz.Trigger;
import org.quartz.listeners.TriggerListenerSupport;

/**
 * Vetoes a fire unless this node claims it: takes the job's leases and starts the fire's run row in
 * {@link #vetoJobExecution}. A fire held elsewhere, already done, or met by a fault (fail closed) is vetoed, which
 * Quartz treats as a normal completed firing: the trigger computes its next fire time and stays healthy. Never throws.
 */
final class CoordinatingTriggerListener extends TriggerListenerSupport {

    private final String name;
    private final FireGuard guard;

    CoordinatingTriggerListener(String name, FireGuard guard) {
        this.name = name;
        this.guard = guard;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean vetoJobExecution(Trigger trigger, JobExecutionContext context) {
        return guard.enter(context) == FireGuard.Entry.SKIP;
    }
}
