package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.JobContext;
import dev.tenure.boot.app.TestApps;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * An operator's intent wins: a Boot application whose context is stopped ({@code ConfigurableApplicationContext.stop()}
 * pauses Spring's scheduler) has no due fires while stopped. Its sweeper records a PAUSED span, catches nothing up and
 * records nothing MISSED; after {@code start()} the span ends and the fires run again. Before, the sweeper caught up
 * every fire the stopped scheduler did not run, through the method's proxy on its catch-up thread.
 */
class StoppedSchedulerIT {

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(StoppedSchedulerIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /** A coordinated method every second that counts its runs. */
    public static class Ticker {
        private final List<String> fires = new CopyOnWriteArrayList<>();

        public List<String> fires() {
            return fires;
        }

        @Scheduled(fixedRate = 1000)
        @Coordinated("stopped-ticker")
        public void tick() {
            fires.add(JobContext.current().fireKey());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class TickerApp {
        @Bean
        Ticker ticker() {
            return new Ticker();
        }
    }

    @Test
    void aStoppedContext_hasNoDueFires_thePausedSpanIsRecorded_andStartResumesIt() throws Exception {
        try (ConfigurableApplicationContext app = TestApps.start(
                TickerApp.class,
                servers,
                "tenure.missed-fires.sweep-interval=200ms",
                "tenure.missed-fires.grace=500ms",
                "tenure.lease.ttl=3s")) {
            Ticker ticker = app.getBean(Ticker.class);
            await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() -> ticker.fires().size() >= 2);
            app.stop();
            int runsWhenStopped = ticker.fires().size();
            await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() -> servers.queryLong("SELECT count(*) FROM tenure.job_schedule WHERE job_key = "
                                    + "'stopped-ticker' AND state = 'PAUSED'")
                            == 1);
            // several slots pass while stopped: none runs, none is caught up, none is recorded MISSED
            Thread.sleep(Timing.scaledMillis(4000));
            assertThat(ticker.fires()).as("runs while stopped").hasSizeLessThanOrEqualTo(runsWhenStopped + 1);
            assertThat(
                            servers.queryLong(
                                    "SELECT count(*) FROM tenure.job_runs WHERE job_key = 'stopped-ticker' AND status = 'MISSED'"))
                    .isZero();
            assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_schedule_span WHERE job_key = "
                            + "'stopped-ticker' AND state = 'PAUSED' AND until_at IS NULL AND reason LIKE '%stopped%'"))
                    .isEqualTo(1);
            app.start();
            await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() -> servers.queryLong("SELECT count(*) FROM tenure.job_schedule WHERE job_key = "
                                    + "'stopped-ticker' AND state = 'ACTIVE'")
                            == 1);
            int resumedAt = ticker.fires().size();
            await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() -> ticker.fires().size() >= resumedAt + 2);
            assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_schedule_span WHERE job_key = "
                            + "'stopped-ticker' AND state = 'PAUSED' AND until_at IS NOT NULL"))
                    .isEqualTo(1);
            assertThat(ticker.fires()).doesNotHaveDuplicates();
        }
    }
}
