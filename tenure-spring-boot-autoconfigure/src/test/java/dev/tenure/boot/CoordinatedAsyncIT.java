package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
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
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A real Boot application with {@code @EnableAsync} on real Postgres and valkey-server: {@code @Async} on a
 * {@code @Coordinated} method, or on its class, stops the start-up naming the method, because the body would run
 * outside its fire. {@code @EnableAsync} next to a {@code @Coordinated} method that is not {@code @Async} starts and
 * runs the fires.
 */
class CoordinatedAsyncIT {

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(CoordinatedAsyncIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /** {@code @Async} on the coordinated method. */
    public static class AsyncMethodSettlement {
        @Scheduled(fixedRate = 1000)
        @Coordinated("async-method-settlement")
        @Async
        public void settle() {}
    }

    /** {@code @Async} on the class of the coordinated method. */
    @Async
    public static class AsyncClassSettlement {
        @Scheduled(fixedRate = 1000)
        @Coordinated("async-class-settlement")
        public void settle() {}
    }

    /** A coordinated method that is not {@code @Async}, next to one that is and is not coordinated. */
    public static class PlainSettlement {
        private final List<String> fires = new CopyOnWriteArrayList<>();

        public List<String> fires() {
            return fires;
        }

        @Scheduled(fixedRate = 1000)
        @Coordinated("plain-settlement")
        public void settle() {
            fires.add(JobContext.current().fireKey());
        }

        @Async
        public void report() {}
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    @EnableAsync
    static class AsyncMethodApp {
        @Bean
        AsyncMethodSettlement settlement() {
            return new AsyncMethodSettlement();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    @EnableAsync
    static class AsyncClassApp {
        @Bean
        AsyncClassSettlement settlement() {
            return new AsyncClassSettlement();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    @EnableAsync
    static class PlainApp {
        @Bean
        PlainSettlement settlement() {
            return new PlainSettlement();
        }
    }

    @Test
    void asyncOnTheCoordinatedMethod_stopsTheStartUp_namingTheMethod() {
        assertRefused(AsyncMethodApp.class, "AsyncMethodSettlement.settle");
    }

    @Test
    void asyncOnTheClassOfTheCoordinatedMethod_stopsTheStartUp_namingTheMethod() {
        assertRefused(AsyncClassApp.class, "AsyncClassSettlement.settle");
    }

    @Test
    void enableAsync_withACoordinatedMethodThatIsNotAsync_startsAndRunsItsFires() {
        try (ConfigurableApplicationContext app = TestApps.start(PlainApp.class, servers)) {
            PlainSettlement settlement = app.getBean(PlainSettlement.class);
            await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() -> !settlement.fires().isEmpty());
        }
    }

    private static void assertRefused(Class<?> application, String method) {
        Throwable failure =
                catchThrowable(() -> TestApps.start(application, servers).close());
        assertThat(failure)
                .as("the start-up of %s", application.getSimpleName())
                .isNotNull();
        assertThat(failure)
                .rootCause()
                .isInstanceOf(TenureConfigurationException.class)
                .hasMessageContaining(method)
                .hasMessageContaining("@Async");
        TenureConfigurationException e =
                (TenureConfigurationException) assertThat(failure).rootCause().actual();
        assertThat(e.action()).contains("executor").contains("@Async");
    }
}
