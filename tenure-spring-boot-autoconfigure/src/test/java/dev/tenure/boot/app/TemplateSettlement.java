package dev.tenure.boot.app;

import dev.tenure.JobContext;
import dev.tenure.boot.Coordinated;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A {@code @Coordinated} method without {@code @Transactional} that writes through {@link JdbcTemplate} inside its
 * run's completion and records the transaction id that {@code JdbcTemplate} and the completion's connection each saw.
 * Scheduled hourly with the first fire an hour away: tests call it.
 */
public class TemplateSettlement {

    private final DataSource dataSource;
    private final JdbcTemplate jdbc;
    private volatile String transactions;

    public TemplateSettlement(DataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    /** "template txid / completion txid" of the last call. */
    public String transactions() {
        return transactions;
    }

    @Scheduled(fixedRate = 1, initialDelay = 1, timeUnit = TimeUnit.HOURS)
    @Coordinated(value = "template-settlement", ttl = "5s")
    public void settle() throws SQLException {
        JobContext run = JobContext.current();
        run.completeInTransaction(dataSource, c -> {
            jdbc.update(
                    "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'template')",
                    run.fireKey(),
                    run.epoch());
            Long template = jdbc.queryForObject("SELECT txid_current()", Long.class);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT txid_current()")) {
                rs.next();
                transactions = template + " / " + rs.getLong(1);
            }
            return null;
        });
    }
}
