package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.tenure.Tenure;
import dev.tenure.boot.app.TestApps;
import dev.tenure.boot.logs.LogLines;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Issue 35, item 9's neighbour: a fire that Spring's scheduler starts while the instance shuts down, after Tenure
 * closed, is not run here and says so in one INFO line. Before, the interceptor let the coordinator's
 * {@code IllegalStateException} reach Spring's scheduler, which logged an ERROR with a stack trace on every shutdown
 * that met a fire ("Unexpected error occurred in scheduled task").
 */
class FireDuringShutdownIT {

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(FireDuringShutdownIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /** A coordinated method on a cron that never comes during the test: the test calls it as the scheduler would. */
    public static class Nightly {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Scheduled(cron = "0 0 3 * * *")
        @Coordinated("fire-during-shutdown")
        public void settle() {
            runs.incrementAndGet();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class NightlyApp {
        @Bean
        Nightly nightly() {
            return new Nightly();
        }
    }

    @Test
    void aFireAfterTenureClosed_isNotRun_saysSoInOneInfoLine_andThrowsNothing() throws Exception {
        try (ConfigurableApplicationContext app =
                TestApps.start(NightlyApp.class, servers, "spring.main.web-application-type=none")) {
            Nightly nightly = app.getBean(Nightly.class);
            app.getBean(Tenure.class).close(); // the shutdown has reached Tenure; Spring's scheduler still fires
            List<String> lines;
            try (LogLines log = LogLines.capture(Level.INFO, "dev.tenure")) {
                nightly.settle(); // as Spring's scheduler calls it: it must not throw
                lines = log.lines();
            }
            lines.forEach(l -> System.out.println("  | " + l));
            assertThat(nightly.runs()).as("runs after Tenure closed").isZero();
            assertThat(lines)
                    .singleElement()
                    .asString()
                    .contains("INFO")
                    .contains("fire-during-shutdown")
                    .contains("not started here: this instance is shutting down");
        }
    }
}
