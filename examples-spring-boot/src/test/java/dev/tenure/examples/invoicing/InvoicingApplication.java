package dev.tenure.examples.invoicing;

import dev.tenure.JobContext;
import dev.tenure.RunOutcome;
import dev.tenure.boot.Coordinated;
import dev.tenure.boot.CoordinatedRunListener;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Boot application as users write one: two invoicing jobs on a two-second cron, {@code @Transactional}, each writing
 * one invoice per slot with {@link JdbcTemplate} inside {@code completeInTransaction}; one catches missed fires up, the
 * other skips them. It prints BEGIN when it holds a fire, DONE when the fire committed, and READY with its pid.
 */
@SpringBootApplication
@EnableScheduling
public class InvoicingApplication {

    public static void main(String[] args) {
        SpringApplication.run(InvoicingApplication.class, args);
    }

    @Component
    public static class Invoicing {

        private final DataSource dataSource;
        private final JdbcTemplate jdbc;
        private final String instance;
        private final Duration work;

        public Invoicing(
                DataSource dataSource,
                JdbcTemplate jdbc,
                @Value("${invoicing.instance}") String instance,
                @Value("${invoicing.work}") Duration work) {
            this.dataSource = dataSource;
            this.jdbc = jdbc;
            this.instance = instance;
            this.work = work;
        }

        @Scheduled(cron = "*/2 * * * * *", zone = "UTC")
        @Coordinated(value = "invoicing-catch-up", missedFires = "catch-up")
        @Transactional
        public void invoiceCatchingUp() throws SQLException {
            invoice("invoicing-catch-up");
        }

        @Scheduled(cron = "*/2 * * * * *", zone = "UTC")
        @Coordinated(value = "invoicing-skip", missedFires = "skip")
        @Transactional
        public void invoiceSkipping() throws SQLException {
            invoice("invoicing-skip");
        }

        private void invoice(String job) throws SQLException {
            JobContext run = JobContext.current();
            run.completeInTransaction(dataSource, c -> {
                pause(work);
                return jdbc.update(
                        "INSERT INTO invoice (job, slot, instance, epoch) VALUES (?, ?, ?, ?)",
                        job,
                        run.fireKey(),
                        instance,
                        run.epoch());
            });
        }

        private static void pause(Duration d) {
            try {
                Thread.sleep(d.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The lines the test reads. */
    @Component
    public static class Lines implements CoordinatedRunListener {

        private final String instance;

        public Lines(@Value("${invoicing.instance}") String instance) {
            this.instance = instance;
        }

        @EventListener
        public void ready(ApplicationReadyEvent event) {
            print("READY " + instance + " pid " + ProcessHandle.current().pid());
        }

        @Override
        public void claimed(JobContext run) {
            print("BEGIN " + run.jobKey() + " " + run.fireKey() + " " + instance + " " + System.currentTimeMillis());
        }

        @Override
        public void finished(RunOutcome<?> o) {
            print((o.status() == RunOutcome.Status.EXECUTED ? "DONE " : "NOT-HERE ") + o.jobKey() + " " + o.fireKey()
                    + " " + instance + " " + o.status());
        }

        private static void print(String line) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
