package dev.tenure.batch;

import dev.tenure.JobCoordinator;
import dev.tenure.RunMdc;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.integration.ClaimedRun;
import dev.tenure.integration.RunClaim;
import dev.tenure.spi.LeaseKeys;
import java.time.LocalDateTime;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.ExitStatus;
import org.springframework.batch.core.job.DefaultJobKeyGenerator;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.JobInstance;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.launch.JobInstanceAlreadyCompleteException;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.StepExecution;

/**
 * The launch guard: a facade over {@link JobOperator#start(Job, JobParameters)} that takes the coordinator's leases
 * and the fire's claim <em>before</em> Spring Batch writes any metadata, so a losing process creates no
 * {@code JobInstance} or {@code JobExecution} and gets {@link RunOutcome.Status#SKIPPED_HELD_ELSEWHERE}.
 *
 * <p>Keys: job key {@code batch:<job name>}, fire key = Spring Batch's job key of the identifying parameters
 * ({@link DefaultJobKeyGenerator}, the {@code JOB_KEY} column of {@code BATCH_JOB_INSTANCE}). A fire whose job
 * completed is never launched again; a failed, stopped, abandoned or taken-over fire is launched again by the next
 * claim, which restarts the job instance from its last committed chunk.
 *
 * <p><b>Crash recovery.</b> When the claim succeeds and the instance's last execution is still marked running
 * (STARTING/STARTED/STOPPING), its owner's database lease has ended (a claim succeeds only then), so the owner is dead
 * or fenced out: the guard calls {@link JobOperator#recover} on it and then restarts the instance. This is sound
 * only if every process launches the job through a guard. UNKNOWN executions (a chunk whose outcome its stale owner
 * never learned) are marked FAILED, so that the instance restarts from its last checkpoint.
 *
 * <p>The run is finished (outcome recorded, leases released) when the job ends, on the thread that ran it, so
 * synchronous and asynchronous task executors both work. Jobs with a {@code JobParametersIncrementer} are refused
 * ({@link IllegalArgumentException}): their parameters are computed per node and have no cross-node identity.
 *
 * <p>Thread-safe. Faults of Tenure's stores are {@link dev.tenure.LeaseStoreUnavailableException}s (nothing is
 * launched then); Spring Batch refusing the launch is a {@link RunOutcome.Status#FAILED} outcome with its error.
 */
public final class GuardedJobOperator {

    /** Prefix of the Tenure job key of a Spring Batch job. */
    public static final String JOB_KEY_PREFIX = "batch:";

    private static final Logger log = LoggerFactory.getLogger(GuardedJobOperator.class);

    private final JobOperator operator;
    private final JobRepository repository;
    private final JobCoordinator coordinator;
    private final BatchRuns runs;
    private final RunPolicy policy;

    GuardedJobOperator(
            JobOperator operator,
            JobRepository repository,
            JobCoordinator coordinator,
            BatchRuns runs,
            RunPolicy policy) {
        this.operator = Objects.requireNonNull(operator, "operator");
        this.repository = Objects.requireNonNull(repository, "repository");
        this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        this.runs = runs;
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** The Tenure job key of a Spring Batch job name. */
    public static String jobKey(String jobName) {
        return LeaseKeys.validate(JOB_KEY_PREFIX + Objects.requireNonNull(jobName, "jobName"));
    }

    /** The Tenure fire key of a launch: Spring Batch's job key (MD5 hex) of the identifying parameters. */
    public static String fireKey(JobParameters parameters) {
        return new DefaultJobKeyGenerator().generateKey(Objects.requireNonNull(parameters, "parameters"));
    }

    /**
     * Launches {@code job} with {@code parameters} if this process wins the job and the fire; see the class comment.
     *
     * @throws IllegalArgumentException if the job has an incrementer or its name is not a valid key
     */
    public BatchLaunch launch(Job job, JobParameters parameters) {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(parameters, "parameters");
        if (job.getJobParametersIncrementer() != null) {
            throw new IllegalArgumentException("job '" + job.getName() + "' has a JobParametersIncrementer: a guarded "
                    + "launch needs identifying parameters that every node computes alike (e.g. the business date)");
        }
        String jobKey = jobKey(job.getName());
        RunClaim claim = coordinator.begin(jobKey, fireKey(parameters), policy, coordinator.leaseOptions(), "batch");
        if (claim instanceof RunClaim.NotClaimed not) {
            log.info(
                    "not launching '{}' {}: {}",
                    job.getName(),
                    parameters,
                    not.outcome().status());
            return BatchLaunch.notLaunched(not.outcome());
        }
        return launchClaimed(job, parameters, ((RunClaim.Claimed) claim).run());
    }

    private BatchLaunch launchClaimed(Job job, JobParameters parameters, ClaimedRun run) {
        GuardedJob guarded = new GuardedJob(job, run, runs);
        try (RunMdc.Scope log = RunMdc.open(run)) { // the launching thread's lines about this run
            return launchClaimed(job, parameters, run, guarded);
        }
    }

    private BatchLaunch launchClaimed(Job job, JobParameters parameters, ClaimedRun run, GuardedJob guarded) {
        try {
            recoverStale(job, parameters, run);
            JobExecution started = operator.start(guarded, parameters);
            if (!guarded.started() && started.getStatus() == BatchStatus.FAILED) {
                guarded.complete(started, null); // the task executor rejected it: it will never run
            }
            return new BatchLaunch(started, guarded.outcome());
        } catch (JobInstanceAlreadyCompleteException e) {
            // Spring Batch completed it but the ledger did not hear of it (a crash in between): record it done
            RunOutcome<Void> o = run.finish(null, null);
            return BatchLaunch.notLaunched(RunOutcome.notRun(
                    RunOutcome.Status.SKIPPED_ALREADY_DONE,
                    o.jobKey(),
                    o.fireKey(),
                    o.epoch(),
                    o.owner(),
                    o.waited(),
                    o.viaFallback()));
        } catch (Exception e) {
            guarded.complete(guarded.execution(), e);
            return new BatchLaunch(guarded.execution(), guarded.outcome());
        }
    }

    private void recoverStale(Job job, JobParameters parameters, ClaimedRun run) {
        JobExecution last = repository.getLastJobExecution(job.getName(), parameters);
        if (last == null) {
            return;
        }
        boolean running = last.getStatus().isRunning()
                || last.getStepExecutions().stream().anyMatch(s -> s.getStatus().isRunning());
        if (running) {
            log.warn(
                    "job execution {} of '{}' is still marked {} but its owner's lease has ended (this process holds "
                            + "epoch {}): recovering it",
                    last.getId(),
                    job.getName(),
                    last.getStatus(),
                    run.epoch());
            operator.recover(last);
        }
        repairUnknown(job, parameters, run);
    }

    /**
     * Marks the instance's UNKNOWN job and step executions FAILED, so Spring Batch restarts it instead of demanding
     * manual intervention. UNKNOWN means a chunk transaction's outcome was not known to its process (a stale owner
     * whose connection was cut, typically). Safe here because the chunk's business writes, its fence check and the
     * step's checkpoint share one transaction on one DataSource (which {@link TenureBatch} requires): whether or not
     * it committed, the checkpoint matches the data; and this process holds the claim, so that owner's lease ended.
     */
    private void repairUnknown(Job job, JobParameters parameters, ClaimedRun run) {
        JobInstance instance = repository.getJobInstance(job.getName(), parameters);
        if (instance == null) {
            return;
        }
        String why = "Tenure: marked FAILED by epoch " + run.epoch() + " (owner " + run.owner() + "): the execution's "
                + "owner lost its lease, and its chunk in flight was fenced or rolled back with its checkpoint";
        for (JobExecution listed : repository.getJobExecutions(instance)) {
            JobExecution e = repository.getJobExecution(listed.getId());
            if (e == null) {
                continue; // deleted since it was listed
            }
            for (StepExecution s : e.getStepExecutions()) {
                if (s.getStatus() == BatchStatus.UNKNOWN) {
                    s.setStatus(BatchStatus.FAILED);
                    s.setExitStatus(ExitStatus.FAILED.addExitDescription(why));
                    s.setEndTime(s.getEndTime() != null ? s.getEndTime() : LocalDateTime.now());
                    repository.update(s);
                }
            }
            if (e.getStatus() == BatchStatus.UNKNOWN) {
                log.warn(
                        "job execution {} of '{}' was left UNKNOWN by an owner that lost its lease: marking it FAILED",
                        e.getId(),
                        job.getName());
                e.setStatus(BatchStatus.FAILED);
                e.setExitStatus(ExitStatus.FAILED.addExitDescription(why));
                e.setEndTime(e.getEndTime() != null ? e.getEndTime() : LocalDateTime.now());
                repository.update(e);
            }
        }
    }
}
