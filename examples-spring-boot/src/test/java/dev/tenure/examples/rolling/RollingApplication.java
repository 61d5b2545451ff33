package dev.tenure.examples.rolling;

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
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * One Boot application in two versions, as a rolling deploy changes it; {@code rolling.version} selects the version's
 * jobs. v1: {@code report} every 3 s and {@code legacy} every 2 s. v2: {@code report} every 2 s (its cron changed),
 * {@code audit} every 2 s (new), and no {@code legacy} (removed). Each fire writes one row with {@link JdbcTemplate}
 * inside {@code completeInTransaction}, {@code @Transactional}. It prints BEGIN when it holds a fire, DONE when the fire
 * committed, and READY with its pid and HTTP port (0 without a web server).
 */
@SpringBootApplication
@EnableScheduling
public class RollingApplication {

    public static void main(String[] args) {
        SpringApplication.run(RollingApplication.class, args);
    }

    /** Writes a fire's row, in the fire's fenced transaction that also completes it. */
    @Component
    public static class Fires {

        private final DataSource dataSource;
        private final JdbcTemplate jdbc;
        private final String instance;
        private final String version;
        private final Duration work;

        public Fires(
                DataSource dataSource,
                JdbcTemplate jdbc,
                @Value("${rolling.instance}") String instance,
                @Value("${rolling.version}") String version,
                @Value("${rolling.work}") Duration work) {
            this.dataSource = dataSource;
            this.jdbc = jdbc;
            this.instance = instance;
            this.version = version;
            this.work = work;
        }

        void write(String job) throws SQLException {
            JobContext run = JobContext.current();
            run.completeInTransaction(dataSource, c -> {
                pause(work);
                return jdbc.update(
                        "INSERT INTO fire (job, slot, instance, version, epoch) VALUES (?, ?, ?, ?, ?)",
                        job,
                        run.fireKey(),
                        instance,
                        version,
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

    /** v1's report: every 3 s. */
    @Component
    @ConditionalOnProperty(name = "rolling.version", havingValue = "v1")
    public static class ReportV1 {
        private final Fires fires;

        public ReportV1(Fires fires) {
            this.fires = fires;
        }

        @Scheduled(cron = "*/3 * * * * *", zone = "UTC")
        @Coordinated(value = "report", missedFires = "catch-up")
        @Transactional
        public void report() throws SQLException {
            fires.write("report");
        }
    }

    /** v1's legacy job, which v2 removes. */
    @Component
    @ConditionalOnProperty(name = "rolling.version", havingValue = "v1")
    public static class LegacyV1 {
        private final Fires fires;

        public LegacyV1(Fires fires) {
            this.fires = fires;
        }

        @Scheduled(cron = "*/2 * * * * *", zone = "UTC")
        @Coordinated(value = "legacy", missedFires = "catch-up")
        @Transactional
        public void legacy() throws SQLException {
            fires.write("legacy");
        }
    }

    /** v2's report: every 2 s. */
    @Component
    @ConditionalOnProperty(name = "rolling.version", havingValue = "v2")
    public static class ReportV2 {
        private final Fires fires;

        public ReportV2(Fires fires) {
            this.fires = fires;
        }

        @Scheduled(cron = "*/2 * * * * *", zone = "UTC")
        @Coordinated(value = "report", missedFires = "catch-up")
        @Transactional
        public void report() throws SQLException {
            fires.write("report");
        }
    }

    /** v2's new audit job. */
    @Component
    @ConditionalOnProperty(name = "rolling.version", havingValue = "v2")
    public static class AuditV2 {
        private final Fires fires;

        public AuditV2(Fires fires) {
            this.fires = fires;
        }

        @Scheduled(cron = "*/2 * * * * *", zone = "UTC")
        @Coordinated(value = "audit", missedFires = "catch-up")
        @Transactional
        public void audit() throws SQLException {
            fires.write("audit");
        }
    }

    /** The lines the test reads. */
    @Component
    public static class Lines implements CoordinatedRunListener {

        private final String instance;

        public Lines(@Value("${rolling.instance}") String instance) {
            this.instance = instance;
        }

        @EventListener
        public void ready(ApplicationReadyEvent event) {
            String port = event.getApplicationContext().getEnvironment().getProperty("local.server.port", "0");
            print("READY " + instance + " pid " + ProcessHandle.current().pid() + " port " + port);
        }

        @Override
        public void claimed(JobContext run) {
            print("BEGIN " + run.jobKey() + " " + run.fireKey() + " " + instance + " " + System.currentTimeMillis());
        }

        @Override
        public void finished(RunOutcome<?> o) {
            print((o.status() == RunOutcome.Status.EXECUTED ? "DONE " : "NOT-HERE ") + o.jobKey() + " " + o.fireKey()
                    + " " + instance + " " + o.status() + " " + System.currentTimeMillis());
        }

        private static void print(String line) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
