package dev.tenure.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.boot.BootServers;
import dev.tenure.quartz.QuartzCoordination;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.Scheduler;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.quartz.autoconfigure.QuartzAutoConfiguration;
import org.springframework.boot.quartz.autoconfigure.SchedulerFactoryBeanCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tenure in Boot's Quartz scheduler, on a real database: the customizer plugs in the job factory or the listeners, only
 * the configured job groups are coordinated, and everything backs off when disabled or without tenure-quartz.
 */
class TenureQuartzAutoConfigurationIT {

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(TenureQuartzAutoConfigurationIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /** Records, per Quartz job, whether its fire ran under a Tenure run. */
    public static class Probe implements Job {
        static final Map<String, String> SEEN = new ConcurrentHashMap<>();

        @Override
        public void execute(JobExecutionContext context) {
            SEEN.put(
                    context.getJobDetail().getKey().getGroup(),
                    QuartzCoordination.contextOf(context)
                            .map(run -> "epoch " + run.epoch())
                            .orElse("uncoordinated"));
        }
    }

    /** One job in a coordinated group, one in another group; each fires once, at once. */
    @Configuration(proxyBeanMethods = false)
    static class Jobs {
        @Bean
        JobDetail settleJob() {
            return JobBuilder.newJob(Probe.class)
                    .withIdentity("settle", "settlement")
                    .storeDurably()
                    .build();
        }

        @Bean
        Trigger settleNow() {
            return TriggerBuilder.newTrigger()
                    .forJob("settle", "settlement")
                    .startNow()
                    .build();
        }

        @Bean
        JobDetail cleanupJob() {
            return JobBuilder.newJob(Probe.class)
                    .withIdentity("cleanup", "housekeeping")
                    .storeDurably()
                    .build();
        }

        @Bean
        Trigger cleanupNow() {
            return TriggerBuilder.newTrigger()
                    .forJob("cleanup", "housekeeping")
                    .startNow()
                    .build();
        }
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        TenureAutoConfiguration.class,
                        QuartzAutoConfiguration.class,
                        TenureQuartzAutoConfiguration.class))
                .withUserConfiguration(Jobs.class)
                .withPropertyValues(servers.dataSource().toArray(String[]::new))
                .withPropertyValues("tenure.lease.ttl=2s", "tenure.quartz.job-groups=settlement");
    }

    @BeforeEach
    void forget() {
        Probe.SEEN.clear();
    }

    @ParameterizedTest
    @ValueSource(strings = {"job-factory", "listeners"})
    void theCustomizer_coordinatesTheConfiguredGroupsOnly(String plugIn) throws Exception {
        runner().withPropertyValues("tenure.quartz.plug-in=" + plugIn).run(context -> {
            assertThat(context).hasSingleBean(QuartzCoordination.class).hasBean("tenureSchedulerFactoryBeanCustomizer");
            await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> Probe.SEEN.size() == 2);
            assertThat(Probe.SEEN.get("settlement")).startsWith("epoch ");
            assertThat(Probe.SEEN.get("housekeeping")).isEqualTo("uncoordinated");
            assertThat(context.getBean(Scheduler.class).getListenerManager().getTriggerListener("tenure") != null)
                    .isEqualTo(plugIn.equals("listeners"));
        });
        assertThat(count("quartz:settlement:settle")).isPositive();
        assertThat(count("quartz:housekeeping:cleanup")).isZero();
    }

    @Test
    void disabled_orWithoutTenureQuartz_backsOff_andJobsRunAsQuartzRunsThem() {
        runner().withPropertyValues("tenure.quartz.enabled=false").run(context -> {
            assertThat(context)
                    .doesNotHaveBean(QuartzCoordination.class)
                    .doesNotHaveBean(SchedulerFactoryBeanCustomizer.class);
            await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> Probe.SEEN.size() == 2);
            assertThat(Probe.SEEN).containsEntry("settlement", "uncoordinated");
        });
        runner().withClassLoader(new FilteredClassLoader(QuartzCoordination.class))
                .run(context ->
                        assertThat(context).hasNotFailed().doesNotHaveBean(SchedulerFactoryBeanCustomizer.class));
    }

    private static long count(String jobKey) throws java.sql.SQLException {
        return servers.queryLong("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + jobKey + "'");
    }
}
