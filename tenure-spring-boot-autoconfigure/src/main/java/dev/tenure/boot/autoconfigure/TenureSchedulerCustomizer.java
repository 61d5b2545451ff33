package dev.tenure.boot.autoconfigure;

import dev.tenure.quartz.QuartzCoordination;
import org.springframework.boot.quartz.autoconfigure.SchedulerFactoryBeanCustomizer;
import org.springframework.context.ApplicationContext;
import org.springframework.scheduling.quartz.SchedulerFactoryBean;
import org.springframework.scheduling.quartz.SpringBeanJobFactory;

/**
 * Plugs Tenure into Boot's {@link SchedulerFactoryBean}: either Tenure's job factory around Spring's
 * {@link SpringBeanJobFactory} (each coordinated job runs in one acquire, claim, execute, finish, release scope), or
 * Tenure's trigger and job listeners as the scheduler's global listeners (which replaces global listeners set by a
 * customizer that ran earlier).
 */
final class TenureSchedulerCustomizer implements SchedulerFactoryBeanCustomizer {

    private final QuartzCoordination coordination;
    private final TenureProperties.QuartzProperties.PlugIn plugIn;
    private final ApplicationContext context;

    TenureSchedulerCustomizer(
            QuartzCoordination coordination,
            TenureProperties.QuartzProperties.PlugIn plugIn,
            ApplicationContext context) {
        this.coordination = coordination;
        this.plugIn = plugIn;
        this.context = context;
    }

    @Override
    public void customize(SchedulerFactoryBean factory) {
        if (plugIn == TenureProperties.QuartzProperties.PlugIn.LISTENERS) {
            factory.setGlobalTriggerListeners(coordination.triggerListener());
            factory.setGlobalJobListeners(coordination.jobListener());
            return;
        }
        SpringBeanJobFactory jobs = new SpringBeanJobFactory();
        jobs.setApplicationContext(context);
        factory.setJobFactory(coordination.jobFactory(jobs));
    }
}
