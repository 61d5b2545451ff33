package dev.tenure.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.batch.GuardedJobOperator;
import dev.tenure.batch.TenureBatch;
import dev.tenure.boot.BootServers;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration;
import org.springframework.boot.batch.autoconfigure.BatchJobLauncherAutoConfiguration;
import org.springframework.boot.batch.autoconfigure.JobLauncherApplicationRunner;
import org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Tenure in Boot's Spring Batch set-up, on a real database with Batch's JDBC repository: Boot's start-up runner
 * launches through the guard (a second instance starting the same job does not run it again), the JDBC repository is
 * fenced, and everything backs off under its switches.
 */
class TenureBatchAutoConfigurationIT {

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(TenureBatchAutoConfigurationIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /** A one-step job that counts its runs. */
    @Configuration(proxyBeanMethods = false)
    static class Payouts {
        static final AtomicInteger RUNS = new AtomicInteger();

        @Bean
        Job payouts(JobRepository repository, PlatformTransactionManager tx) {
            return new JobBuilder("payouts", repository)
                    .start(new StepBuilder("pay", repository)
                            .tasklet(
                                    (contribution, chunk) -> {
                                        RUNS.incrementAndGet();
                                        return RepeatStatus.FINISHED;
                                    },
                                    tx)
                            .build())
                    .build();
        }
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        BatchAutoConfiguration.class,
                        BatchJdbcAutoConfiguration.class,
                        BatchJobLauncherAutoConfiguration.class,
                        TenureAutoConfiguration.class,
                        TenureBatchAutoConfiguration.class))
                .withUserConfiguration(Payouts.class)
                .withPropertyValues(servers.dataSource().toArray(String[]::new))
                .withPropertyValues("spring.batch.jdbc.initialize-schema=always", "tenure.lease.ttl=2s");
    }

    @Test
    void bootsStartUpRunner_launchesThroughTheGuard_onceAcrossInstances_onAFencedJdbcRepository() throws Exception {
        for (String instance : new String[] {"a", "b"}) {
            runner().run(context -> {
                assertThat(context)
                        .hasSingleBean(TenureBatch.class)
                        .hasSingleBean(GuardedJobOperator.class)
                        .getBean(JobLauncherApplicationRunner.class)
                        .isInstanceOf(GuardedJobLauncherApplicationRunner.class);
                assertThat(fenced(context.getBean(JobRepository.class))).isTrue();
                context.getBean(JobLauncherApplicationRunner.class).run(); // what SpringApplication.run does
            });
        }
        assertThat(Payouts.RUNS).hasValue(1);
        assertThat(servers.queryLong("SELECT count(*) FROM batch_job_execution"))
                .isEqualTo(1);
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'batch:payouts' "
                        + "AND status = 'COMPLETED'"))
                .isEqualTo(1);
    }

    @Test
    void theSwitches_leaveBootsRunnerAndRepository_orNoRunnerAtAll() {
        runner().withPropertyValues(
                        "tenure.batch.guard-startup-launch=false", "tenure.batch.fence-job-repository=false")
                .run(context -> {
                    assertThat(context.getBean(JobLauncherApplicationRunner.class)
                                    .getClass())
                            .isEqualTo(JobLauncherApplicationRunner.class);
                    assertThat(fenced(context.getBean(JobRepository.class))).isFalse();
                });
        runner().withPropertyValues("spring.batch.job.enabled=false")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(JobLauncherApplicationRunner.class)
                        .hasSingleBean(GuardedJobOperator.class));
        runner().withClassLoader(new FilteredClassLoader(TenureBatch.class))
                .run(context -> assertThat(context)
                        .doesNotHaveBean(GuardedJobOperator.class)
                        .getBean(JobLauncherApplicationRunner.class)
                        .isExactlyInstanceOf(JobLauncherApplicationRunner.class));
    }

    /** Tenure's fenced repository is a JDK proxy with its own handler (Batch's own repository is a Spring AOP proxy). */
    private static boolean fenced(JobRepository repository) {
        return Proxy.isProxyClass(repository.getClass())
                && Proxy.getInvocationHandler(repository)
                        .getClass()
                        .getName()
                        .equals("dev.tenure.batch.FencedJobRepository");
    }
}
