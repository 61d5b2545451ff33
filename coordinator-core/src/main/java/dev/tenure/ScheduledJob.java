package dev.tenure;

import dev.tenure.spi.LeaseKeys;
import java.util.Objects;
import java.util.Optional;

/**
 * A job with a schedule, registered with {@link Tenure#register}: Tenure records the schedule in its ledger and its
 * sweeper accounts for every fire that was due (see {@link MissedFirePolicy}).
 *
 * <pre>{@code
 * tenure.register(ScheduledJob.of("invoicing", Schedule.fixedRate(Duration.ofMinutes(1)),
 *         fireKey -> tenure.coordinator().run("invoicing", fireKey, RunPolicy.waitUpTo(ttl), work)));
 * }</pre>
 *
 * @param jobKey      the job key of its runs
 * @param schedule    when its fires are due; the fire keys are {@link Schedule#fireKey}
 * @param policy      what happens to a fire that did not complete in time
 * @param catchUp     how a catch-up reaches the job: runs the fire with the given key through the coordinator; let it
 *                    wait for the job (a lease TTL, say) rather than skip it, since a regular fire may hold the job
 *                    at that moment
 * @param integration who registered it, for operators: {@code coordinator}, {@code scheduled}, {@code quartz}
 * @param pause       whether the job is paused where it is registered: an operator's intent wins over any catch-up
 */
public record ScheduledJob(
        String jobKey, Schedule schedule, MissedFirePolicy policy, CatchUp catchUp, String integration, Pause pause) {

    /** Runs one fire of the job now, through the coordinator, with the fire key it is given. */
    @FunctionalInterface
    public interface CatchUp {
        /**
         * Runs fire {@code fireKey}. Called on Tenure's catch-up thread, one fire at a time; whatever it throws is logged
         * and the fire stays overdue (the next sweep looks again).
         */
        void run(String fireKey) throws Exception;
    }

    /**
     * Whether the host scheduler has the job paused (an operator paused or unscheduled it, or the scheduler stands by).
     * A paused job has no due fires: the sweeper never catches one up, and the ledger keeps the span in which it was
     * paused instead of MISSED records. Asked on Tenure's sweeper and catch-up threads, before a job's due fires are
     * judged and before each catch-up; it must answer quickly.
     */
    @FunctionalInterface
    public interface Pause {
        /** A job that is never paused. */
        Pause NEVER = Optional::empty;

        /** Why the job is paused now, e.g. {@code "paused in Quartz"}; empty while it is active. */
        Optional<String> pausedBecause();
    }

    public ScheduledJob {
        LeaseKeys.validate(jobKey);
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(catchUp, "catchUp");
        Objects.requireNonNull(integration, "integration");
        Objects.requireNonNull(pause, "pause");
    }

    /** A job that is never paused ({@link Pause#NEVER}). */
    public ScheduledJob(
            String jobKey, Schedule schedule, MissedFirePolicy policy, CatchUp catchUp, String integration) {
        this(jobKey, schedule, policy, catchUp, integration, Pause.NEVER);
    }

    /** A job run by {@code catchUp} through the coordinator, with the default policy ({@link MissedFirePolicy#catchUp()}). */
    public static ScheduledJob of(String jobKey, Schedule schedule, CatchUp catchUp) {
        return new ScheduledJob(jobKey, schedule, MissedFirePolicy.catchUp(), catchUp, "coordinator");
    }

    public ScheduledJob withPolicy(MissedFirePolicy p) {
        return new ScheduledJob(jobKey, schedule, p, catchUp, integration, pause);
    }

    public ScheduledJob withIntegration(String name) {
        return new ScheduledJob(jobKey, schedule, policy, catchUp, name, pause);
    }

    public ScheduledJob withPause(Pause p) {
        return new ScheduledJob(jobKey, schedule, policy, catchUp, integration, p);
    }
}
