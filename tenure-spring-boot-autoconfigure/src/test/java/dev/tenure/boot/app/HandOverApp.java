package dev.tenure.boot.app;

import dev.tenure.RunOutcome;
import dev.tenure.boot.CoordinatedRunListener;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A Boot application for a JVM of its own (main class): {@link SlowSettlement} every second, and a listener that
 * prints each fire's outcome. Stdout lines: {@code READY}, then per fire {@code BEGIN}, {@code END} and
 * {@code FINISHED} (see {@link SlowSettlement}). Run with {@code spring.datasource.*} and {@code tenure.valkey.*}.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
public class HandOverApp {

    public static void main(String[] args) {
        SpringApplication app = new SpringApplication(HandOverApp.class);
        app.setDefaultProperties(Map.of(
                "spring.autoconfigure.exclude",
                        "org.springframework.boot.quartz.autoconfigure.QuartzAutoConfiguration,"
                                + "org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration,"
                                + "org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration",
                "spring.main.banner-mode", "off",
                "spring.main.web-application-type", "none",
                // the hand-over alone: no catch-ups of the fires skipped while the slow run held the job
                // (EveryFireAccountedIT covers both together)
                "tenure.missed-fires.enabled", "false",
                "logging.level.root", "warn"));
        app.run(args);
        System.out.println("READY " + ProcessHandle.current().pid());
    }

    @Bean
    SlowSettlement slowSettlement(DataSource dataSource, @Value("${settlement.work}") Duration work) {
        return new SlowSettlement(dataSource, work);
    }

    @Bean
    CoordinatedRunListener printedOutcomes() {
        return new CoordinatedRunListener() {
            @Override
            public void finished(RunOutcome<?> o) {
                if (o.status() != RunOutcome.Status.SKIPPED_HELD_ELSEWHERE) {
                    System.out.println("FINISHED " + o.fireKey() + " " + o.status() + " " + Instant.now() + " "
                            + (o.error() == null ? "" : o.error()));
                }
            }
        };
    }
}
