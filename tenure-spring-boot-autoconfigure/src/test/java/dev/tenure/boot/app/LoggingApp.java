package dev.tenure.boot.app;

import dev.tenure.RunOutcome;
import dev.tenure.boot.Coordinated;
import dev.tenure.boot.CoordinatedRunListener;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A {@code @Coordinated} method and a plain one, both every second, on Boot's one scheduler thread; both log, and so
 * does a {@link CoordinatedRunListener} told of each outcome after the run.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
public class LoggingApp {

    public static final String JOB = "logged-settlement";
    private static final Logger LOG = LoggerFactory.getLogger("mdc.test.app");
    private static final Set<String> THREADS = ConcurrentHashMap.newKeySet();

    /** The threads the two methods ran on. */
    public static Set<String> threads() {
        return Set.copyOf(THREADS);
    }

    @Bean
    Methods methods() {
        return new Methods();
    }

    @Bean
    CoordinatedRunListener outcomeLogger() {
        return new CoordinatedRunListener() {
            @Override
            public void finished(RunOutcome<?> outcome) {
                if (outcome.executed()) {
                    LOG.info("listener told of {}", outcome.status());
                }
            }
        };
    }

    public static class Methods {
        @Scheduled(cron = "* * * * * *", zone = "UTC")
        @Coordinated(JOB)
        public void settle() {
            THREADS.add(Thread.currentThread().getName());
            LOG.info("coordinated method");
        }

        @Scheduled(cron = "* * * * * *", zone = "UTC")
        public void plain() {
            THREADS.add(Thread.currentThread().getName());
            LOG.info("plain method");
        }
    }
}
