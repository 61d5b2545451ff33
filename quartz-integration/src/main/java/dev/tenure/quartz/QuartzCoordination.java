package dev.tenure.quartz;

import dev.tenure.JobContext;
import dev.tenure.JobCoordinator;
import dev.tenure.Lease;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.integration.ClaimedRun;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.JobListener;
import org.quartz.ListenerManager;
import org.quartz.Matcher;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.TriggerKey;
import org.quartz.TriggerListener;
import org.quartz.impl.matchers.EverythingMatcher;
import org.quartz.impl.matchers.NotMatcher;
import org.quartz.simpl.PropertySettingJobFactory;
import org.quartz.spi.JobFactory;

/**
 * Coordinates Quartz jobs across nodes with a {@link JobCoordinator}: each fire (a job and its trigger's scheduled
 * fire time) runs on at most one node, under a lease and an epoch that fences its writes. Two ways to plug it in:
 * <pre>{@code
 * QuartzCoordination quartz = QuartzCoordination.builder(tenure)   // the application's Tenure
 *         .jobs(GroupMatcher.jobGroupEquals("settlement"))         // default: every job
 *         .build();
 * quartz.registerListeners(scheduler);                             // 1. a trigger listener + job listener pair
 * // or
 * scheduler.setJobFactory(quartz.jobFactory());                    // 2. a job factory decorator (one scope per fire)
 * }</pre>
 * A job reads its run with {@link JobContext#current()} (epoch, lease state, the fence check), and from other threads
 * with {@link #contextOf}; its lease with {@link #leaseOf}.
 *
 * <p>The fire key is the trigger's scheduled fire time, so every node must compute the same schedule: the
 * {@linkplain #checkSchedules schedule check} flags coordinated triggers for which they may not ({@link ScheduleCheck}).
 *
 * <p>Nothing here throws into Quartz: faults become skipped fires (the default, {@link FaultPolicy#SKIP_FIRE}) or
 * uncoordinated runs ({@link FaultPolicy#RUN_UNCOORDINATED}), a log line and a metric. Thread-safe; one per scheduler
 * or per application.
 */
public final class QuartzCoordination {

    /** The default listener name (Quartz keys listeners by name: a second registration replaces the first). */
    public static final String DEFAULT_NAME = "tenure";

    private final JobCoordinator coordinator;
    private final String name;
    private final Matcher<JobKey> jobs;
    private final Function<JobKey, String> jobKeys;
    private final RunPolicy runPolicy;
    private final RunPolicy recoveryPolicy;
    private final FaultPolicy faultPolicy;
    private final boolean interruptOnLeaseLoss;
    private final FireMetrics metrics;
    private final ScheduleCheck scheduleCheck;
    private final Matcher<TriggerKey> intendedSchedules;
    private final FireGuard guard;
    private final dev.tenure.@Nullable Tenure tenure;
    private final dev.tenure.MissedFirePolicy missedFires;

    private QuartzCoordination(Builder b) {
        this.coordinator = b.coordinator;
        this.name = b.name;
        this.jobs = b.jobs;
        this.jobKeys = b.jobKeys;
        this.runPolicy = b.runPolicy;
        this.recoveryPolicy = b.recoveryPolicy;
        this.faultPolicy = b.faultPolicy;
        this.interruptOnLeaseLoss = b.interruptOnLeaseLoss;
        this.metrics = b.metrics;
        this.scheduleCheck = b.scheduleCheck;
        this.intendedSchedules = b.intendedSchedules;
        this.guard = new FireGuard(this);
        this.tenure = b.recordSchedules ? b.tenure : null;
        this.missedFires = b.missedFires;
    }

    /**
     * Coordinates fires through {@code tenure}'s job coordinator, and records the schedules of the coordinated jobs with
     * {@link dev.tenure.Tenure#register} (see {@link #checkSchedules}), so that missed fires are caught up or reported.
     */
    public static Builder builder(dev.tenure.Tenure tenure) {
        return new Builder(tenure);
    }

    /**
     * Registers the trigger listener, the job listener and a scheduler listener (which finishes claimed fires that
     * Quartz abandons when some other listener throws) on {@code scheduler}, additively; then runs
     * {@link #checkSchedules}.
     *
     * @throws SchedulerException        if Quartz refuses the registration (nothing is registered then, or only part
     *                                   of it; registering again replaces by name)
     * @throws ScheduleRefusedException under {@link ScheduleCheck#REFUSE}, if coordinated triggers are suspect; the
     *                                   listeners stay registered and skip the fires of those triggers
     */
    public void registerListeners(Scheduler scheduler) throws SchedulerException {
        ListenerManager listeners = scheduler.getListenerManager();
        listeners.addSchedulerListener(new CoordinatingJobListener.ListenerErrors(guard));
        listeners.addJobListener(jobListener(), EverythingMatcher.allJobs());
        listeners.addTriggerListener(triggerListener(), EverythingMatcher.allTriggers());
        checkSchedules(scheduler);
    }

    /**
     * Records the schedules of the coordinated jobs with Tenure (unless {@link Builder#recordSchedules} is off), now and
     * whenever their triggers change: a missed fire is then caught up as {@code scheduler.triggerJob} with the missed
     * fire's key, or recorded MISSED, by {@link #missedFires()}. Then the schedule check ({@link ScheduleCheck}, unless
     * {@code OFF}): checks the triggers of coordinated jobs already
     * in {@code scheduler}, and adds a scheduler listener (once) that checks triggers scheduled later. Run by
     * {@link #registerListeners}; call it yourself with the {@linkplain #jobFactory() job factory} style or Spring's
     * {@code setGlobalTriggerListeners} (under {@link ScheduleCheck#REFUSE} the fires of suspect triggers are skipped
     * either way, since each fire is checked too). A clustered job store ({@code isJobStoreClustered()}) shares one
     * trigger between nodes: simple triggers are not suspect there, cron triggers in the default zone are.
     *
     * @throws SchedulerException        if Quartz cannot list the jobs and triggers
     * @throws ScheduleRefusedException under {@link ScheduleCheck#REFUSE}, listing every suspect trigger
     */
    public void checkSchedules(Scheduler scheduler) throws SchedulerException {
        if (tenure != null) {
            QuartzSchedules.install(this, tenure, scheduler);
        }
        ScheduleWatch.install(this, guard::coordinates, scheduler);
    }

    /** The trigger listener that claims fires (for Spring's {@code setGlobalTriggerListeners}, say). */
    public TriggerListener triggerListener() {
        return new CoordinatingTriggerListener(name, guard);
    }

    /** The job listener that finishes claimed fires; register it with {@link #triggerListener()}. */
    public JobListener jobListener() {
        return new CoordinatingJobListener(name, guard);
    }

    /** Wraps Quartz's default job factory ({@link PropertySettingJobFactory}). */
    public JobFactory jobFactory() {
        return jobFactory(new PropertySettingJobFactory());
    }

    /**
     * Wraps {@code delegate} (Spring's {@code SpringBeanJobFactory}, say): each coordinated job it creates runs in one
     * acquire → claim → execute → finish → release scope.
     */
    public JobFactory jobFactory(JobFactory delegate) {
        return new CoordinatingJobFactory(Objects.requireNonNull(delegate, "delegate"), guard);
    }

    /**
     * The coordinated run of the fire {@code context} belongs to: empty if this fire is not coordinated. In the job's
     * {@code execute}, {@link JobContext#current()} answers the same; this reaches the run from other threads, such as
     * an {@code InterruptableJob}'s {@code interrupt()} or a listener.
     */
    public static Optional<JobContext> contextOf(JobExecutionContext context) {
        return run(context).map(r -> r);
    }

    /** The database lease of the fire's run (state, time left, epoch); empty if this fire is not coordinated. */
    public static Optional<Lease> leaseOf(JobExecutionContext context) {
        return run(context).map(ClaimedRun::lease);
    }

    /** What Tenure decided for this fire, once known: a skip at once, a run's outcome after it finished. */
    public static Optional<RunOutcome<?>> outcomeOf(JobExecutionContext context) {
        Object o = context.get(FireGuard.OUTCOME);
        return o instanceof RunOutcome<?> outcome ? Optional.of(outcome) : Optional.empty();
    }

    private static Optional<ClaimedRun> run(JobExecutionContext context) {
        Object o = context.get(FireGuard.RUN);
        return o instanceof ClaimedRun r ? Optional.of(r) : Optional.empty();
    }

    boolean coordinates(JobKey key) {
        return jobs.isMatch(key);
    }

    String jobKey(JobKey key) {
        return jobKeys.apply(key);
    }

    JobCoordinator coordinator() {
        return coordinator;
    }

    RunPolicy runPolicy() {
        return runPolicy;
    }

    RunPolicy recoveryPolicy() {
        return recoveryPolicy;
    }

    FaultPolicy faultPolicy() {
        return faultPolicy;
    }

    boolean interruptOnLeaseLoss() {
        return interruptOnLeaseLoss;
    }

    FireMetrics metrics() {
        return metrics;
    }

    ScheduleCheck scheduleCheck() {
        return scheduleCheck;
    }
    /** What happens to a missed fire of a coordinated job ({@link Builder#missedFires}). */
    public dev.tenure.MissedFirePolicy missedFires() {
        return missedFires;
    }

    /** True if the user vouches for this trigger's schedule; a matcher that throws counts as no (it is checked). */
    boolean intendedSchedule(TriggerKey key) {
        try {
            return intendedSchedules.isMatch(key);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Configuration of a {@link QuartzCoordination}; every knob has a default. */
    public static final class Builder {
        private final JobCoordinator coordinator;
        private String name = DEFAULT_NAME;
        private Matcher<JobKey> jobs = EverythingMatcher.allJobs();
        private Function<JobKey, String> jobKeys = FireKeys::jobKey;
        private RunPolicy runPolicy = RunPolicy.skipFire();
        private RunPolicy recoveryPolicy = RunPolicy.waitUpTo(Duration.ofSeconds(60));
        private FaultPolicy faultPolicy = FaultPolicy.SKIP_FIRE;
        private boolean interruptOnLeaseLoss = true;
        private FireMetrics metrics = FireMetrics.none();
        private ScheduleCheck scheduleCheck = ScheduleCheck.WARN;
        private Matcher<TriggerKey> intendedSchedules = NotMatcher.not(EverythingMatcher.allTriggers());
        private final dev.tenure.Tenure tenure;
        private dev.tenure.MissedFirePolicy missedFires = dev.tenure.MissedFirePolicy.catchUp();
        private boolean recordSchedules = true;

        private Builder(dev.tenure.Tenure tenure) {
            this.tenure = Objects.requireNonNull(tenure, "tenure");
            this.coordinator = tenure.coordinator();
        }

        /** Listener name (default {@value #DEFAULT_NAME}); use another for a second coordination on one scheduler. */
        public Builder name(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("listener name must not be blank (Quartz rejects it)");
            }
            this.name = name;
            return this;
        }

        /** Which jobs are coordinated (default: all). Others run as Quartz would run them. */
        public Builder jobs(Matcher<JobKey> matcher) {
            this.jobs = Objects.requireNonNull(matcher, "matcher");
            return this;
        }

        /** The Tenure job key of a Quartz job (default {@code quartz:<group>:<name>}, URL-encoded parts). */
        public Builder jobKeys(Function<JobKey, String> mapping) {
            this.jobKeys = Objects.requireNonNull(mapping, "mapping");
            return this;
        }

        /**
         * What a fire does when another node holds the job (default {@link RunPolicy#skipFire()}). A waiting policy
         * holds a Quartz worker thread while it waits; keep the wait shorter than the trigger's period.
         */
        public Builder runPolicy(RunPolicy policy) {
            this.runPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * What a cluster-recovery fire ({@code isRecovering()}, JDBC job store, {@code requestsRecovery} jobs) does
         * when the job is held (default: wait up to 60 s). Quartz may declare a frozen node dead before that node's
         * lease has run out; waiting lets the recovery fire complete the fire once the lease ends (or find it done,
         * if the node was only slow) instead of skipping it for good. Keep it above the coordinator's lease TTL.
         */
        public Builder recoveryPolicy(RunPolicy policy) {
            this.recoveryPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** What a fire does when Tenure faults (default {@link FaultPolicy#SKIP_FIRE}: fail closed). */
        public Builder onFault(FaultPolicy policy) {
            this.faultPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Interrupt an {@link org.quartz.InterruptableJob} when its lease is lost (default true). */
        public Builder interruptOnLeaseLoss(boolean interrupt) {
            this.interruptOnLeaseLoss = interrupt;
            return this;
        }

        /** Where fire outcomes are counted (default none; see {@link MicrometerFireMetrics}). */
        public Builder metrics(FireMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * What to do about coordinated triggers whose fire keys may differ between nodes (default
         * {@link ScheduleCheck#WARN}; {@code REFUSE} fails closed, {@code OFF} checks nothing).
         */
        public Builder scheduleCheck(ScheduleCheck check) {
            this.scheduleCheck = Objects.requireNonNull(check, "check");
            return this;
        }

        /**
         * Triggers whose schedule you vouch for (default none): the schedule check skips them. For a cron trigger
         * whose explicit zone happens to be this JVM's default, or a simple trigger whose start time every node
         * computes the same way off the interval's grid.
         */
        public Builder intendedSchedules(Matcher<TriggerKey> matcher) {
            this.intendedSchedules = Objects.requireNonNull(matcher, "matcher");
            return this;
        }

        /**
         * What happens to a fire of a coordinated job that was due and did not complete (default
         * {@link dev.tenure.MissedFirePolicy#catchUp()}: a catch-up is {@code scheduler.triggerJob} with the missed
         * fire's key). A job whose recurring triggers all say "never fire late" ({@code MISFIRE_INSTRUCTION_DO_NOTHING},
         * or a simple trigger's {@code RESCHEDULE_NEXT_WITH_*}) is never caught up: under a catch-up policy it is
         * registered with action SKIP, its bounds kept. A job paused, unscheduled or deleted in Quartz, or whose
         * scheduler stands by, has no due fires meanwhile.
         */
        public Builder missedFires(dev.tenure.MissedFirePolicy policy) {
            this.missedFires = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Whether {@link QuartzCoordination#checkSchedules} records the coordinated jobs' schedules in Tenure's ledger
         * (default true). Off, fires are still coordinated, but nobody accounts for a fire that no node ran: no catch-up,
         * no MISSED record, no overdue count. The Spring Boot starter turns it off with
         * {@code tenure.missed-fires.enabled=false}.
         */
        public Builder recordSchedules(boolean record) {
            this.recordSchedules = record;
            return this;
        }

        public QuartzCoordination build() {
            return new QuartzCoordination(this);
        }
    }
}
