package dev.tenure.boot.app;

import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A web application with the actuator, Tenure's health and endpoint exposed, and a settlement that holds its job. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class OpsApp {

    @Bean
    HeldSettlement heldSettlement(DataSource dataSource) {
        return new HeldSettlement(dataSource);
    }

    @Bean
    Events events(DataSource dataSource) {
        return new Events(dataSource, TestApps.valkey);
    }
}
