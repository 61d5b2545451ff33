package dev.tenure.boot.app;

import dev.tenure.JobContext;
import dev.tenure.boot.Coordinated;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A {@code @Transactional @Coordinated} settlement every second, recording what it sees: whether a transaction is
 * active in its body, and whether the job's leases are still held right after its commit.
 */
public class OrderedSettlement {

    private final DataSource dataSource;
    private final JdbcTemplate jdbc;
    private final Events events;

    public OrderedSettlement(DataSource dataSource, Events events) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        this.events = events;
    }

    @Scheduled(cron = "* * * * * *", zone = "UTC")
    @Coordinated(value = "ordered-settlement", ttl = "3s")
    @Transactional
    public void settle() throws SQLException {
        JobContext run = JobContext.current();
        events.record(
                run.fireKey(),
                "body: transaction active " + TransactionSynchronizationManager.isActualTransactionActive());
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                events.record(run.fireKey(), "after commit: lease held " + events.leaseHeld(run.jobKey(), run.owner()));
            }
        });
        jdbc.update(
                "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'ordered')",
                run.fireKey(),
                run.epoch());
        run.completeInTransaction(dataSource, c -> null); // fence and completion join the method's transaction
    }
}
