package dev.tenure.boot.autoconfigure;

import dev.tenure.RunOutcome;
import dev.tenure.batch.BatchLaunch;
import dev.tenure.batch.GuardedJobOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.boot.batch.autoconfigure.JobExecutionEvent;
import org.springframework.boot.batch.autoconfigure.JobLauncherApplicationRunner;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Boot's start-up job runner, launching through Tenure's {@link GuardedJobOperator}: of all instances starting the
 * same job with the same identifying parameters, one launches it and the others log that they did not
 * ({@code SKIPPED_HELD_ELSEWHERE}, or {@code SKIPPED_ALREADY_DONE} once it completed). Jobs with a
 * {@code JobParametersIncrementer} are refused (their parameters differ per instance): launch them yourself, or set
 * {@code tenure.batch.guard-startup-launch=false}.
 */
public class GuardedJobLauncherApplicationRunner extends JobLauncherApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(GuardedJobLauncherApplicationRunner.class);

    private final GuardedJobOperator guard;
    private ApplicationEventPublisher publisher;

    /**
     * @param operator the application's job operator (Boot's runner needs it; launches go through {@code guard})
     * @param guard    the guarded launch of Tenure's {@code TenureBatch} on that operator
     */
    public GuardedJobLauncherApplicationRunner(JobOperator operator, GuardedJobOperator guard) {
        super(operator);
        this.guard = guard;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        super.setApplicationEventPublisher(publisher);
        this.publisher = publisher;
    }

    @Override
    protected void execute(Job job, JobParameters parameters) {
        BatchLaunch launch = guard.launch(job, parameters);
        if (launch.execution().isPresent()) {
            publisher.publishEvent(new JobExecutionEvent(launch.execution().get()));
            return;
        }
        RunOutcome<Void> o = launch.outcomeNow().orElseThrow();
        log.info("Tenure: job '{}' {} not launched by this instance: {}", job.getName(), parameters, o.status());
    }
}
