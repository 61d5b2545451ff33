package dev.tenure.boot.autoconfigure;

import dev.tenure.Tenure;
import dev.tenure.boot.actuate.TenureEndpoint;
import dev.tenure.db.TenureAdmin;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code tenure} actuator endpoint ({@link TenureEndpoint}), when Boot's actuator is present and the endpoint is
 * available (exposed, access not {@code none}). Its write operation, the force-release, needs
 * {@code management.endpoint.tenure.access=unrestricted}.
 */
@AutoConfiguration(after = TenureAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(Tenure.class)
public final class TenureEndpointAutoConfiguration {

    @Bean
    @ConditionalOnAvailableEndpoint // on the method: its condition class exists only with Boot's actuator
    @ConditionalOnMissingBean
    TenureEndpoint tenureEndpoint(Tenure tenure, TenureAdmin admin, TenureDatabase database) {
        return new TenureEndpoint(tenure, admin, database.dataSource(), database.schema());
    }
}
