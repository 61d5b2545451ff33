package dev.tenure.boot.app;

import dev.tenure.JobContext;
import dev.tenure.boot.Coordinated;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.annotation.Transactional;

/**
 * The frozen holder of {@code FrozenHolderLogIT}, in a JVM of its own: a {@code @Transactional @Coordinated} method
 * every 2 s whose first run fences its transaction, writes, prints {@code BEGIN <fire>} and then works for 3 s inside
 * the transaction (the test freezes the JVM there), before it completes the fire. It prints {@code READY} once started.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
public class FrozenHolderNode {

    public static final String JOB = "frozen-holder";

    public static void main(String[] args) {
        new SpringApplicationBuilder(FrozenHolderNode.class).run(args);
        System.out.println("READY");
    }

    @Bean
    Methods methods(DataSource dataSource) {
        return new Methods(dataSource);
    }

    public static class Methods {
        private final DataSource dataSource;
        private final JdbcTemplate jdbc;
        private final AtomicBoolean first = new AtomicBoolean(true);

        Methods(DataSource dataSource) {
            this.dataSource = dataSource;
            this.jdbc = new JdbcTemplate(dataSource);
        }

        @Scheduled(cron = "*/2 * * * * *", zone = "UTC")
        @Coordinated(value = JOB, ttl = "2s")
        @Transactional
        public void settle() throws SQLException, InterruptedException {
            JobContext run = JobContext.current();
            if (!first.compareAndSet(true, false)) {
                return;
            }
            run.completeInTransaction(dataSource, c -> {
                jdbc.update(
                        "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'frozen')",
                        run.fireKey(),
                        run.epoch());
                System.out.println("BEGIN " + run.fireKey());
                try {
                    Thread.sleep(3000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            });
        }
    }
}
