package dev.tenure.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.tenure.RunMdc;
import dev.tenure.RunOutcome;
import dev.tenure.batch.BatchLaunch;
import dev.tenure.batch.GuardedJobOperator;
import dev.tenure.boot.BootServers;
import dev.tenure.boot.logs.LogLines;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration;
import org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * A guarded Spring Batch launch: the step's log lines and Tenure's line about the job's end carry the run's
 * {@link RunMdc} keys (Logback, real Postgres and Batch's JDBC repository), and the next task on the same pooled thread
 * sees none of them while the application's own MDC key survives.
 */
class BatchRunMdcIT {

    private static final Logger LOG = LoggerFactory.getLogger("mdc.test.batch");
    private static final String APP_KEY = "app.tenant";

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(BatchRunMdcIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /** A one-step job that logs. */
    @Configuration(proxyBeanMethods = false)
    static class Statements {
        @Bean
        Job statements(JobRepository repository, PlatformTransactionManager tx) {
            return new JobBuilder("mdc-statements", repository)
                    .start(new StepBuilder("print", repository)
                            .tasklet(
                                    (contribution, chunk) -> {
                                        LOG.info("batch step");
                                        return RepeatStatus.FINISHED;
                                    },
                                    tx)
                            .build())
                    .build();
        }
    }

    @Test
    void guardedLaunch_stepLinesCarryTheRun_andTheNextTaskOnThePooledThreadDoesNot() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        BatchAutoConfiguration.class,
                        BatchJdbcAutoConfiguration.class,
                        TenureAutoConfiguration.class,
                        TenureBatchAutoConfiguration.class))
                .withUserConfiguration(Statements.class)
                .withPropertyValues(servers.dataSource().toArray(String[]::new))
                .withPropertyValues("spring.batch.jdbc.initialize-schema=always", "spring.batch.job.enabled=false")
                .run(context -> {
                    ExecutorService pool = Executors.newSingleThreadExecutor();
                    try (LogLines lines = LogLines.capture(Level.INFO, "mdc.test", "dev.tenure.batch")) {
                        pool.submit(() -> MDC.put(APP_KEY, "acme")).get();
                        BatchLaunch launch = pool.submit(() -> context.getBean(GuardedJobOperator.class)
                                        .launch(
                                                context.getBean(Job.class),
                                                new JobParametersBuilder()
                                                        .addString("day", "2026-12-04")
                                                        .toJobParameters()))
                                .get();
                        RunOutcome<Void> o = launch.awaitOutcome(Timing.scaled(Duration.ofSeconds(10)))
                                .orElseThrow();
                        pool.submit(() -> LOG.info("the next task")).get();

                        assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
                        Map<String, String> run = Map.of(
                                RunMdc.JOB,
                                "batch:mdc-statements",
                                RunMdc.FIRE,
                                o.fireKey(),
                                RunMdc.EPOCH,
                                Long.toString(o.epoch()),
                                RunMdc.OWNER,
                                o.owner(),
                                RunMdc.NODE,
                                context.getBean(dev.tenure.Tenure.class).nodeName(),
                                APP_KEY,
                                "acme");
                        assertThat(lines.mdcOf("batch step")).containsExactly(run);
                        assertThat(lines.mdcOf("ActiveRun[job=batch:mdc-statements"))
                                .as("Tenure's line about the end")
                                .containsExactly(run);
                        assertThat(lines.mdcOf("the next task")).containsExactly(Map.of(APP_KEY, "acme"));
                    } finally {
                        pool.shutdownNow();
                    }
                });
    }
}
