package dev.tenure.boot.autoconfigure;

import dev.tenure.Tenure;
import dev.tenure.boot.actuate.TenureFiresHealthIndicator;
import dev.tenure.boot.actuate.TenureHealthIndicator;
import dev.tenure.db.TenureAdmin;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Tenure's health contributor ({@link TenureHealthIndicator}, component {@code tenure} of {@code /actuator/health}),
 * when Boot's health support is present; {@code management.health.tenure.enabled=false} turns it off.
 */
@AutoConfiguration(after = TenureAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean(Tenure.class)
public final class TenureHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnEnabledHealthIndicator("tenure") // on the method: its condition class exists only with Boot's health
    @ConditionalOnMissingBean(name = {"tenureHealthIndicator", "tenureHealthContributor"})
    TenureHealthIndicator tenureHealthIndicator(Tenure tenure, TenureDatabase database) {
        return new TenureHealthIndicator(tenure, database.dataSource());
    }

    @Bean
    @ConditionalOnEnabledHealthIndicator("tenureFires")
    @ConditionalOnMissingBean(name = "tenureFiresHealthIndicator")
    TenureFiresHealthIndicator tenureFiresHealthIndicator(
            TenureAdmin admin, TenureProperties properties, Tenure tenure) {
        MissedFiresProperties missed = properties.missedFires();
        return TenureFiresHealthIndicator.of(
                admin,
                missed.overdueHealth() == MissedFiresProperties.OverdueHealth.DOWN,
                missed.sweepInterval(),
                tenure);
    }
}
