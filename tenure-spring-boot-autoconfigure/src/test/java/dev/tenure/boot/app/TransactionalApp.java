package dev.tenure.boot.app;

import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** An application with a {@code @Transactional @Coordinated} settlement every second, and one that goes stale. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
public class TransactionalApp {

    @Bean
    Events events(DataSource dataSource) {
        return new Events(dataSource, TestApps.valkey);
    }

    @Bean
    OrderedSettlement orderedSettlement(DataSource dataSource, Events events) {
        return new OrderedSettlement(dataSource, events);
    }

    @Bean
    StaleSettlement staleSettlement(DataSource dataSource) {
        return new StaleSettlement(dataSource);
    }
}
