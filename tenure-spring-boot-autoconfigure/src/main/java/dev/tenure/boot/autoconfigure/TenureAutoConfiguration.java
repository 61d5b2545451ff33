package dev.tenure.boot.autoconfigure;

import dev.tenure.Tenure;
import dev.tenure.ValkeyUnavailableException;
import dev.tenure.boot.TenureConfigurationException;
import dev.tenure.db.TenureAdmin;
import dev.tenure.observation.TenureRunObservationConvention;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The {@link Tenure} of the application, on the application's {@code DataSource} (or on a pool of its own when
 * {@code tenure.datasource.url} is set), configured by {@code tenure.*} ({@link TenureProperties}), with its meters in
 * the application's Micrometer registry. Start-up migrates Tenure's schema with its own Flyway history table, next to
 * the application's own migrations. Every bean backs off when the application declares its own.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration"
        })
@ConditionalOnClass({Tenure.class, TenureAdmin.class})
@ConditionalOnBooleanProperty(name = "tenure.enabled", matchIfMissing = true)
@EnableConfigurationProperties(TenureProperties.class)
public final class TenureAutoConfiguration {

    /** Spring's own default of {@code spring.lifecycle.timeout-per-shutdown-phase}. */
    private static final Duration DEFAULT_SHUTDOWN_PHASE_TIMEOUT = Duration.ofSeconds(30);

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    TenureDatabase tenureDatabase(TenureProperties properties, ObjectProvider<DataSource> dataSource) {
        return properties
                .datasource()
                .toPoolConfig()
                .map(pool -> TenureDatabase.pooled(pool, properties.schema()))
                .orElseGet(() -> TenureDatabase.of(applicationDataSource(dataSource), properties.schema()));
    }

    private static DataSource applicationDataSource(ObjectProvider<DataSource> dataSource) {
        DataSource ds = dataSource.getIfUnique();
        if (ds == null) {
            throw new TenureConfigurationException(
                    "tenure.datasource.url",
                    "Tenure needs the Postgres database of its "
                            + "epochs and run records, and the application has no single DataSource bean",
                    "Add spring-boot-starter-jdbc with spring.datasource.url, mark one DataSource @Primary, set "
                            + "tenure.datasource.url, or set tenure.enabled=false.");
        }
        return ds;
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Tenure tenure(
            TenureDatabase database,
            TenureProperties properties,
            ObjectProvider<TenureBuilderCustomizer> customizers,
            Environment environment) {
        Tenure.Builder b = Tenure.builder()
                .dataSource(database.dataSource())
                .schema(database.schema())
                .nodeName(properties.effectiveNodeName(environment.getProperty("spring.application.name")))
                .migrateSchema(properties.migrateSchema())
                .leaseDefaults(properties.lease().toOptions())
                .fallbackBreaker(
                        properties.fallback().failures(), properties.fallback().openFor())
                .database(properties.database().toConfig())
                .application(properties.effectiveApplication(environment.getProperty("spring.application.name")))
                .sweepInterval(properties.missedFires().sweepInterval())
                .retireSchedulesAfter(properties.missedFires().retireAfter());
        properties.valkey().toConfig().ifPresent(b::valkey);
        if (properties.mode() != null && properties.valkey().toConfig().isPresent()) {
            b.mode(properties.mode());
        }
        b.requireValkey(properties.valkey().required());
        customizers.orderedStream().forEach(c -> c.customize(b));
        try {
            return b.build();
        } catch (ValkeyUnavailableException e) {
            throw new TenureConfigurationException(
                    "tenure.valkey.required",
                    "Valkey is required and does not answer " + "Tenure: " + e.problem(),
                    "Fix tenure.valkey.addresses, tenure.valkey.username or "
                            + "tenure.valkey.password, or set tenure.valkey.required=false to start with the database fallback.");
        }
    }

    /**
     * Closes Tenure after the schedulers in the application's shutdown: runs get up to the shutdown phase timeout, then
     * are abandoned, and every lease is released before Tenure's clients close.
     */
    @Bean
    @ConditionalOnMissingBean
    TenureShutdown tenureShutdown(Tenure tenure, Environment environment, ApplicationContext context) {
        Duration drain = Binder.get(environment)
                .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(DEFAULT_SHUTDOWN_PHASE_TIMEOUT);
        return new TenureShutdown(tenure, drain, context);
    }

    /** Its force-release also deletes the job's Valkey lease, through Tenure's own client, when Valkey is configured. */
    @Bean
    @ConditionalOnMissingBean
    TenureAdmin tenureAdmin(TenureDatabase database, Tenure tenure) {
        return tenure.valkeyEviction()
                .map(v -> TenureAdmin.create(database.dataSource(), database.schema(), v))
                .orElseGet(() -> TenureAdmin.create(database.dataSource(), database.schema()));
    }

    /** Binds the lease and run meters to the application's registry, when Micrometer is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class TenureMetricsConfiguration {

        @Bean
        TenureBuilderCustomizer tenureMeterRegistryCustomizer(ObjectProvider<MeterRegistry> registry) {
            return b -> registry.ifUnique(b::meterRegistry);
        }
    }

    /**
     * Observes every coordinated run in the application's {@code ObservationRegistry} ({@code tenure.run}, a child of
     * Spring's {@code tasks.scheduled.execution}), with the application's {@code TenureRunObservationConvention} if it
     * has one; its tracer, if any, makes the spans and the trace ids kept on the run rows.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    static class TenureObservationConfiguration {

        @Bean
        TenureBuilderCustomizer tenureObservationRegistryCustomizer(
                ObjectProvider<ObservationRegistry> registry,
                ObjectProvider<TenureRunObservationConvention> convention) {
            return b -> {
                registry.ifUnique(b::observationRegistry);
                convention.ifUnique(b::observationConvention);
            };
        }
    }
}
