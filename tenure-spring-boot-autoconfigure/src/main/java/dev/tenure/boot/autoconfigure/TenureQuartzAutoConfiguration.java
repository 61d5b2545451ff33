package dev.tenure.boot.autoconfigure;

import dev.tenure.Tenure;
import dev.tenure.quartz.FireMetrics;
import dev.tenure.quartz.MicrometerFireMetrics;
import dev.tenure.quartz.QuartzCoordination;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.quartz.JobKey;
import org.quartz.Matcher;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.impl.matchers.GroupMatcher;
import org.quartz.impl.matchers.OrMatcher;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.quartz.autoconfigure.SchedulerFactoryBeanCustomizer;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.quartz.SchedulerFactoryBean;

/**
 * Tenure in Boot's Quartz scheduler (when {@code spring-boot-starter-quartz} and {@code tenure-quartz} are present):
 * a {@link SchedulerFactoryBeanCustomizer} plugs in Tenure's job factory or its listeners ({@code tenure.quartz.plug-in})
 * for the job groups of {@code tenure.quartz.job-groups}, and the schedule check runs once the scheduler exists. Fires
 * are counted as {@code tenure.job.fires} ({@code integration=quartz}) when Micrometer is present.
 */
@AutoConfiguration(
        after = TenureAutoConfiguration.class,
        beforeName = "org.springframework.boot.quartz.autoconfigure.QuartzAutoConfiguration")
@ConditionalOnClass({QuartzCoordination.class, SchedulerFactoryBean.class, SchedulerFactoryBeanCustomizer.class})
@ConditionalOnBean(Tenure.class)
@ConditionalOnBooleanProperty(name = "tenure.quartz.enabled", matchIfMissing = true)
@EnableConfigurationProperties(TenureProperties.class)
public final class TenureQuartzAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    QuartzCoordination tenureQuartzCoordination(
            Tenure tenure, TenureProperties properties, ObjectProvider<FireMetrics> metrics) {
        // the coordination records the jobs' schedules for the sweeper, unless missed-fire accounting is turned off
        // (tenure.missed-fires.enabled=false)
        QuartzCoordination.Builder b = QuartzCoordination.builder(tenure)
                .recordSchedules(properties.missedFires().enabled());
        List<String> groups = properties.quartz().jobGroups();
        if (!groups.isEmpty()) {
            Matcher<JobKey> matcher = GroupMatcher.jobGroupEquals(groups.get(0));
            for (String group : groups.subList(1, groups.size())) {
                matcher = OrMatcher.or(matcher, GroupMatcher.jobGroupEquals(group));
            }
            b.jobs(matcher);
        }
        metrics.ifAvailable(b::metrics);
        b.missedFires(properties.missedFires().toPolicy(null));
        return b.build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "tenureSchedulerFactoryBeanCustomizer")
    SchedulerFactoryBeanCustomizer tenureSchedulerFactoryBeanCustomizer(
            QuartzCoordination coordination, TenureProperties properties, ApplicationContext context) {
        return new TenureSchedulerCustomizer(coordination, properties.quartz().plugIn(), context);
    }

    @Bean
    SmartInitializingSingleton tenureQuartzScheduleCheck(
            QuartzCoordination coordination, ObjectProvider<Scheduler> scheduler) {
        return () -> scheduler.ifUnique(s -> {
            try {
                coordination.checkSchedules(s);
            } catch (SchedulerException e) {
                throw new IllegalStateException("Tenure could not check the Quartz schedules: " + e.getMessage(), e);
            }
        });
    }

    /** Counts Quartz fires in the application's registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class QuartzFireMetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        FireMetrics tenureQuartzFireMetrics(ObjectProvider<MeterRegistry> registry) {
            return (job, outcome) -> registry.ifUnique(r -> new MicrometerFireMetrics(r).fire(job, outcome));
        }
    }
}
