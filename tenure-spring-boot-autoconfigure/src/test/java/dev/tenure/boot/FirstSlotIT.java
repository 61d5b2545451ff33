package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.JobContext;
import dev.tenure.boot.app.TestApps;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Issue 35, item 10: a fresh deploy's schedule is accounted for from the first slot that Spring's scheduler fires, not
 * from the moment its bean exists. An application whose context takes 3 s more to start after its singletons exist (a
 * web server, a cache warm-up) on a 1-second cron: before, the slots that passed while it started were due to nobody,
 * so under {@code skip} they were recorded MISSED, and under {@code catch-up} they ran late from Tenure's catch-up
 * thread. Now no slot before the scheduler's first is due: none is MISSED, none is caught up, every slot from the
 * scheduler's first on runs once on the scheduler's thread.
 */
class FirstSlotIT {

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(FirstSlotIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @BeforeEach
    void clean() throws Exception {
        servers.execute("DROP SCHEMA IF EXISTS tenure CASCADE"); // a fresh database: the application migrates it
    }

    /** A coordinated method on a 1-second cron that records which thread ran each fire. */
    public static class Ticker {
        private final Map<String, String> threads = new ConcurrentHashMap<>();

        public Map<String, String> threads() {
            return threads; // through the proxy: a field read on it would see the proxy's own, empty field
        }

        @Scheduled(cron = "* * * * * *")
        @Coordinated("first-slot")
        public void tick() {
            threads.put(JobContext.current().fireKey(), Thread.currentThread().getName());
        }
    }

    /** What takes the context a while to start after its singletons exist, before Spring's scheduler starts. */
    static class SlowStart implements SmartLifecycle {
        private volatile boolean running;

        @Override
        public void start() {
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running = true;
        }

        @Override
        public void stop() {
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class SlowApp {
        @Bean
        Ticker ticker() {
            return new Ticker();
        }

        @Bean
        SlowStart slowStart() {
            return new SlowStart();
        }
    }

    @Test
    void underSkip_theSlotsThatPassedWhileTheContextStarted_areNotRecordedMissed() throws Exception {
        check("skip");
    }

    @Test
    void underCatchUp_theSlotsThatPassedWhileTheContextStarted_areNotCaughtUp() throws Exception {
        check("catch-up");
    }

    private void check(String policy) throws Exception {
        try (ConfigurableApplicationContext app = TestApps.start(
                SlowApp.class,
                servers,
                "tenure.missed-fires.policy=" + policy,
                "tenure.missed-fires.sweep-interval=200ms",
                "tenure.missed-fires.grace=500ms",
                "tenure.lease.ttl=3s")) {
            Ticker ticker = app.getBean(Ticker.class);
            await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() -> ticker.threads().size() >= 4);
            Thread.sleep(Timing.scaledMillis(1500)); // past the grace of the fires so far, several sweeps
            Instant first = ticker.threads().keySet().stream()
                    .map(Instant::parse)
                    .min(Instant::compareTo)
                    .orElseThrow();
            List<String> accountedFrom =
                    servers.queryStrings("SELECT swept_until FROM tenure.job_schedule WHERE job_key = 'first-slot'");
            List<String> missed = servers.queryStrings(
                    "SELECT fire_key FROM tenure.job_runs WHERE job_key = 'first-slot' AND status = 'MISSED'");
            System.out.printf(
                    "%s: first fire run %s, ran %s, MISSED %s, position %s%n",
                    policy, first, ticker.threads(), missed, accountedFrom);
            assertThat(missed).as("fires recorded MISSED under " + policy).isEmpty();
            assertThat(ticker.threads())
                    .as("every fire ran on Spring's scheduler, none was caught up")
                    .allSatisfy((fire, thread) -> assertThat(thread).doesNotContain("catch-up"));
            // every slot from the scheduler's first on ran (none lost): the account is complete
            long slots = servers.queryLong("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'first-slot' AND "
                    + "status = 'COMPLETED' AND fire_key::timestamptz >= '" + first + "'");
            assertThat(slots).isEqualTo(ticker.threads().size());
        }
    }
}
