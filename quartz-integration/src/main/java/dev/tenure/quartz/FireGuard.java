package dev.tenure.quartz;

import dev.tenure.JobCoordinator;
import dev.tenure.RunMdc;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.integration.ClaimedRun;
import dev.tenure.integration.RunClaim;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.quartz.InterruptableJob;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place both plug-in styles share: begin a coordinated run for a fire, finish it. Keeps its state in the
 * fire's {@link JobExecutionContext} (a per-fire scratch map), and never throws: every fault becomes a skip (or an
 * uncoordinated run, if so configured), a log line and a metric. From the claim to the recorded outcome the worker
 * thread's MDC carries the run's {@link RunMdc} keys (the claim and the outcome are on the worker thread that runs the
 * job: Quartz calls the listeners and the job on it). Thread-safe.
 */
final class FireGuard {

    static final String RUN = "dev.tenure.quartz.run";
    static final String OUTCOME = "dev.tenure.quartz.outcome";
    /** The run's MDC keys on the worker thread, from the claim to the recorded outcome. */
    static final String LOG_SCOPE = "dev.tenure.quartz.mdc";

    private static final Logger LOG = LoggerFactory.getLogger(QuartzCoordination.class);
    /** How a run's observations name this integration. */
    static final String INTEGRATION = "quartz";

    /** What {@link #enter} decided. */
    enum Entry {
        /** Claimed: run the job, then {@link #exit}. */
        RUN,
        /** A fault, and the policy is to run anyway. */
        RUN_UNCOORDINATED,
        /** Another node has it, it is done, or a fault under the fail-closed policy. */
        SKIP,
        /** Not a job Tenure coordinates. */
        NOT_COORDINATED
    }

    private final QuartzCoordination config;

    FireGuard(QuartzCoordination config) {
        this.config = config;
    }

    /** True if {@code key} is a coordinated job; a matcher that throws counts as yes (it is checked again at the fire). */
    boolean coordinates(org.quartz.JobKey key) {
        try {
            return config.coordinates(key);
        } catch (Throwable t) {
            return true;
        }
    }

    /** Claims the fire of {@code context} (see {@link Entry}). Never throws. */
    Entry enter(JobExecutionContext context) {
        String job = null;
        try {
            if (!config.coordinates(context.getJobDetail().getKey())) {
                return Entry.NOT_COORDINATED;
            }
            if (context.get(RUN) instanceof ClaimedRun held && !held.isFinished()) {
                return Entry.RUN; // both plug-in styles on one scheduler: the first one holds the fire
            }
            // a finished run here is a re-execution (JobExecutionException with refireImmediately): claim again
            job = config.jobKey(context.getJobDetail().getKey());
            Optional<ScheduleRisk> refused = ScheduleWatch.refusal(config, context);
            if (refused.isPresent()) {
                return refuse(context, job, refused.get());
            }
            // a recovery or a catch-up waits for the job rather than skipping the fire it exists for
            RunPolicy policy = context.isRecovering() || QuartzCatchUps.isCatchUp(context.getTrigger())
                    ? config.recoveryPolicy()
                    : config.runPolicy();
            JobCoordinator coordinator = config.coordinator();
            RunClaim claim =
                    coordinator.begin(job, FireKeys.fireKey(context), policy, coordinator.leaseOptions(), INTEGRATION);
            if (claim instanceof RunClaim.NotClaimed not) {
                context.put(OUTCOME, not.outcome());
                report(job, not.outcome().status().name());
                LOG.debug(
                        "fire {} of {} skipped: {}",
                        not.outcome().fireKey(),
                        job,
                        not.outcome().status());
                return Entry.SKIP;
            }
            ClaimedRun run = ((RunClaim.Claimed) claim).run();
            context.put(RUN, run);
            context.put(LOG_SCOPE, RunMdc.open(run));
            if (config.interruptOnLeaseLoss()) {
                run.onCancelled(() -> interrupt(context, run));
            }
            return Entry.RUN;
        } catch (Throwable t) {
            return fault(context, job, t);
        }
    }

    /** Records the outcome of a run {@link #enter} claimed ({@code error == null}: success). Never throws. */
    void exit(JobExecutionContext context, @Nullable Throwable error) {
        Object held = context.get(RUN);
        if (!(held instanceof ClaimedRun run) || run.isFinished()) {
            closeLogScope(context);
            return;
        }
        try {
            RunOutcome<Object> outcome = run.finish(null, error);
            context.put(OUTCOME, outcome);
            report(run.jobKey(), outcome.status().name());
            if (outcome.status() == RunOutcome.Status.LEASE_LOST) {
                LOG.warn(
                        "fire {} of {} ran but lost its lease (epoch {}): its outcome was rejected as stale",
                        run.fireKey(),
                        run.jobKey(),
                        run.epoch());
            } else {
                LOG.debug("fire {} of {} {} (epoch {})", run.fireKey(), run.jobKey(), outcome.status(), run.epoch());
            }
        } catch (Throwable t) {
            report(run.jobKey(), "fault_on_finish");
            LOG.error(
                    "could not record the outcome of fire {} of {} (epoch {}); its leases are released and the "
                            + "next claim marks the run abandoned",
                    run.fireKey(),
                    run.jobKey(),
                    run.epoch(),
                    t);
        } finally {
            closeLogScope(context);
        }
    }

    /** Takes the run's MDC keys off the worker thread (restoring what it had before). Never throws. */
    private static void closeLogScope(JobExecutionContext context) {
        try {
            if (context.get(LOG_SCOPE) instanceof RunMdc.Scope scope) {
                context.put(LOG_SCOPE, null);
                scope.close();
            }
        } catch (Throwable ignored) {
            // the MDC never breaks a fire
        }
    }

    /** The fire was vetoed by someone else after {@link #enter} claimed it: give the fire back as failed. */
    void vetoedElsewhere(JobExecutionContext context) {
        Object held = context.get(RUN);
        if (held instanceof ClaimedRun run && !run.isFinished()) {
            report(run.jobKey(), "vetoed_by_other_listener");
            exit(context, new IllegalStateException("fire vetoed by another Quartz listener"));
        }
    }

    private Entry refuse(JobExecutionContext context, String job, ScheduleRisk risk) {
        report(job, "skipped_schedule_refused");
        LOG.warn(
                "fire {} of {} skipped: its trigger {} is refused by the schedule check ({}, ScheduleCheck.REFUSE); "
                        + "fix the trigger or exempt it with intendedSchedules(...) (checkSchedules(scheduler) logs why)",
                FireKeys.fireKey(context),
                job,
                context.getTrigger().getKey(),
                risk.tag());
        return Entry.SKIP;
    }

    private Entry fault(JobExecutionContext context, @Nullable String job, Throwable t) {
        String name = job != null ? job : String.valueOf(safeKey(context));
        if (config.faultPolicy() == FaultPolicy.RUN_UNCOORDINATED) {
            report(name, "fault_ran_uncoordinated");
            LOG.error(
                    "Tenure could not coordinate a fire of {}; running it UNCOORDINATED as configured "
                            + "(FaultPolicy.RUN_UNCOORDINATED)",
                    name,
                    t);
            return Entry.RUN_UNCOORDINATED;
        }
        report(name, "fault_skipped");
        LOG.error(
                "Tenure could not coordinate a fire of {}; the fire is skipped (fail closed), the trigger stays "
                        + "scheduled: {}",
                name,
                t.toString());
        return Entry.SKIP;
    }

    private void interrupt(JobExecutionContext context, ClaimedRun run) {
        Job job = context.getJobInstance();
        try (RunMdc.Scope log = RunMdc.open(run)) { // on Tenure's watchdog thread: a line about this run all the same
            LOG.warn(
                    "lease of {} lost during fire {} (epoch {}); interrupting the job",
                    run.jobKey(),
                    run.fireKey(),
                    run.epoch());
        }
        if (!(job instanceof InterruptableJob interruptable)) {
            return;
        }
        Thread t = new Thread(
                () -> {
                    try {
                        interruptable.interrupt();
                    } catch (Throwable e) {
                        LOG.warn("interrupting {} after its lease was lost failed", run.jobKey(), e);
                    }
                },
                "tenure-quartz-interrupt");
        t.setDaemon(true);
        t.start();
    }

    private void report(String job, String outcome) {
        try {
            config.metrics().fire(job, outcome.toLowerCase(Locale.ROOT));
        } catch (Throwable ignored) {
            // metrics never break a fire
        }
    }

    private static Object safeKey(JobExecutionContext context) {
        try {
            return context.getJobDetail().getKey();
        } catch (Throwable t) {
            return "?";
        }
    }
}
