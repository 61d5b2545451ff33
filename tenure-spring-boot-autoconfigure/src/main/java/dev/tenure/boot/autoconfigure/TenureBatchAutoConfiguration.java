package dev.tenure.boot.autoconfigure;

import dev.tenure.Tenure;
import dev.tenure.batch.GuardedJobOperator;
import dev.tenure.batch.TenureBatch;
import javax.sql.DataSource;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.batch.autoconfigure.JobLauncherApplicationRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tenure in Boot's Spring Batch set-up (when {@code spring-boot-starter-batch} and {@code tenure-batch} are present):
 * a {@link TenureBatch} on the application's DataSource, a {@link GuardedJobOperator} bean for your launches, Boot's
 * start-up job runner replaced by {@link GuardedJobLauncherApplicationRunner}, and, when Batch uses Boot's JDBC job
 * repository, that repository fenced ({@link TenureBatch#fenced(JobRepository)}).
 */
@AutoConfiguration(
        after = TenureAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration",
            "org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration"
        },
        beforeName = "org.springframework.boot.batch.autoconfigure.BatchJobLauncherAutoConfiguration")
@ConditionalOnClass({TenureBatch.class, JobOperator.class, JobLauncherApplicationRunner.class})
@ConditionalOnBean(Tenure.class)
public final class TenureBatchAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TenureBatch tenureBatch(Tenure tenure, DataSource dataSource) {
        return TenureBatch.of(tenure, dataSource);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean({JobOperator.class, JobRepository.class})
    GuardedJobOperator tenureGuardedJobOperator(TenureBatch batch, JobOperator operator, JobRepository repository) {
        return batch.guard(operator, repository);
    }

    @Bean
    @ConditionalOnMissingBean(JobLauncherApplicationRunner.class)
    @ConditionalOnBean({JobOperator.class, JobRepository.class})
    @ConditionalOnBooleanProperty(name = "spring.batch.job.enabled", matchIfMissing = true)
    @ConditionalOnBooleanProperty(name = "tenure.batch.guard-startup-launch", matchIfMissing = true)
    JobLauncherApplicationRunner jobLauncherApplicationRunner(
            JobOperator operator,
            GuardedJobOperator guard,
            org.springframework.boot.batch.autoconfigure.BatchProperties properties) {
        GuardedJobLauncherApplicationRunner runner = new GuardedJobLauncherApplicationRunner(operator, guard);
        String name = properties.getJob().getName();
        if (name != null && !name.isBlank()) {
            runner.setJobName(name);
        }
        return runner;
    }

    /** Fences Boot's JDBC job repository (the bean {@code jobRepository} of Boot's JDBC batch configuration). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(type = "org.springframework.batch.core.configuration.support.JdbcDefaultBatchConfiguration")
    @ConditionalOnBooleanProperty(name = "tenure.batch.fence-job-repository", matchIfMissing = true)
    static class FencedRepositoryConfiguration {

        @Bean
        static BeanPostProcessor tenureFencedJobRepository(ObjectProvider<TenureBatch> batch) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof JobRepository repository && "jobRepository".equals(name)
                            ? batch.getObject().fenced(repository)
                            : bean;
                }
            };
        }
    }
}
