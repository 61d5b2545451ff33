package dev.tenure.boot.autoconfigure;

import dev.tenure.Tenure;
import dev.tenure.boot.CoordinatedAdvisor;
import dev.tenure.boot.CoordinatedMethodsCheck;
import dev.tenure.boot.CoordinatedRunListener;
import dev.tenure.boot.CoordinatedSchedules;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@link dev.tenure.boot.Coordinated} on {@code @Scheduled} methods: Tenure's advisor (outside the transaction
 * advisor), the start-up check of every coordinated method, and the fire counter {@code tenure.job.fires}
 * ({@code integration=scheduled}) when Micrometer is present. Makes sure an auto-proxy creator exists.
 */
@AutoConfiguration(after = TenureAutoConfiguration.class)
@ConditionalOnClass(Scheduled.class)
@ConditionalOnBean(Tenure.class)
@ConditionalOnBooleanProperty(name = "tenure.scheduling.enabled", matchIfMissing = true)
@Import(TenureSchedulingAutoConfiguration.AutoProxying.class)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
@EnableConfigurationProperties(TenureProperties.class)
public final class TenureSchedulingAutoConfiguration {

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static CoordinatedAdvisor tenureCoordinatedAdvisor(
            ConfigurableBeanFactory beanFactory,
            ObjectProvider<TenureProperties> properties,
            ObjectProvider<Tenure> tenure,
            ObjectProvider<CoordinatedRunListener> listeners) {
        return new CoordinatedAdvisor(
                new EmbeddedValueResolver(beanFactory),
                () -> properties.getObject().lease().toOptions(),
                () -> tenure.getObject().coordinator(),
                () -> listeners.orderedStream().toList(),
                Clock.systemUTC(),
                () -> properties.getObject().scheduling().advisorOrder());
    }

    @Bean
    @ConditionalOnMissingBean
    static CoordinatedMethodsCheck tenureCoordinatedMethodsCheck(ObjectProvider<CoordinatedAdvisor> advisor) {
        return new CoordinatedMethodsCheck(advisor);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "tenure.missed-fires.enabled", matchIfMissing = true)
    static CoordinatedSchedules tenureCoordinatedSchedules(
            ObjectProvider<CoordinatedAdvisor> advisor,
            ObjectProvider<Tenure> tenure,
            ObjectProvider<TenureProperties> properties) {
        return new CoordinatedSchedules(
                advisor,
                tenure::getObject,
                action -> properties.getObject().missedFires().toPolicy(action));
    }

    /** Counts each fire of a coordinated method in the application's registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class FireMetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "tenureScheduledFireCounter")
        CoordinatedRunListener tenureScheduledFireCounter(ObjectProvider<MeterRegistry> registry) {
            return new FireCounter(registry);
        }
    }

    /** Registers Spring's infrastructure auto-proxy creator unless the application has one already. */
    static class AutoProxying implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
