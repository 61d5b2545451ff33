package dev.tenure.examples.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The settlement application: Boot's JDBC (HikariCP), Flyway, web and actuator starters, and Tenure's starter. Its
 * {@link Settlement} job settles each second once across all running instances. Run several with
 * {@link BootSettlementExample}, or alone with {@code spring.datasource.*} pointing at a Postgres database.
 */
@SpringBootApplication
@EnableScheduling
public class SettlementApplication {

    public static void main(String[] args) {
        SpringApplication.run(SettlementApplication.class, args);
    }
}
