package dev.tenure.boot.app;

import dev.tenure.JobContext;
import dev.tenure.boot.Coordinated;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Written as a new user writes it: a {@code @Scheduled @Coordinated} method without {@code @Transactional} that writes
 * through {@link JdbcTemplate} and {@link JdbcClient} inside its run's completion, then throws. Every second while
 * {@link #on} is set; the fire must fail with nothing written.
 */
public class FailingTemplateSettlement {

    private final DataSource dataSource;
    private final JdbcTemplate jdbc;
    private final JdbcClient client;
    private volatile boolean on;

    public FailingTemplateSettlement(DataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        this.client = JdbcClient.create(dataSource);
    }

    public void on(boolean on) {
        this.on = on;
    }

    @Scheduled(cron = "* * * * * *", zone = "UTC")
    @Coordinated(value = "failing-template-settlement", ttl = "3s")
    public void settle() throws SQLException {
        if (!on) {
            return;
        }
        JobContext run = JobContext.current();
        run.completeInTransaction(dataSource, c -> {
            jdbc.update(
                    "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'failing-template')",
                    run.fireKey(),
                    run.epoch());
            client.sql("INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'failing-client')")
                    .params(run.fireKey(), run.epoch())
                    .update();
            throw new IllegalStateException("settlement file missing");
        });
    }
}
