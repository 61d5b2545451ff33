package dev.tenure.boot.app;

import dev.tenure.JobContext;
import dev.tenure.boot.Coordinated;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A settlement that holds its job at a gate, then writes through its run's completion: an operator force-releases the
 * job meanwhile. Scheduled hourly with the first fire an hour away: tests call it.
 */
public class HeldSettlement {

    private final DataSource dataSource;
    private volatile Gate gate = new Gate();

    public HeldSettlement(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public Gate gate() {
        return gate;
    }

    @Scheduled(fixedRate = 1, initialDelay = 1, timeUnit = TimeUnit.HOURS)
    @Coordinated(value = "held-settlement", ttl = "5s")
    public void settle() throws SQLException, InterruptedException {
        JobContext run = JobContext.current();
        gate.pass();
        run.completeInTransaction(dataSource, c -> {
            try (var insert =
                    c.prepareStatement("INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'held')")) {
                insert.setString(1, run.fireKey());
                insert.setLong(2, run.epoch());
                return insert.executeUpdate();
            }
        });
    }
}
