package dev.tenure.boot.app;

import dev.tenure.JobContext;
import dev.tenure.boot.Coordinated;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.annotation.Transactional;

/**
 * A transactional settlement that writes, then stops at a gate before it fences and completes: a test takes the job
 * away from it meanwhile (force-release), so it resumes as a stale owner. Scheduled hourly with the first fire an hour
 * away: tests call it.
 */
public class StaleSettlement {

    private final DataSource dataSource;
    private final JdbcTemplate jdbc;
    private volatile Gate gate = new Gate();

    public StaleSettlement(DataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    public Gate gate() {
        return gate;
    }

    @Scheduled(fixedRate = 1, initialDelay = 1, timeUnit = TimeUnit.HOURS)
    @Coordinated(value = "stale-settlement", ttl = "5s")
    @Transactional
    public void settle() throws SQLException, InterruptedException {
        JobContext run = JobContext.current();
        jdbc.update(
                "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'stale')",
                run.fireKey(),
                run.epoch());
        gate.pass();
        run.completeInTransaction(dataSource, c -> null); // the fence: a stale owner's transaction rolls back
    }
}
