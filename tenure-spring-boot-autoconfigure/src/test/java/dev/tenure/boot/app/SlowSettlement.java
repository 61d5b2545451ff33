package dev.tenure.boot.app;

import dev.tenure.JobContext;
import dev.tenure.boot.Coordinated;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A settlement every second that takes a while ({@code settlement.work}), then writes its slot through the run's
 * completion. Prints {@code BEGIN <slot> <owner> <epoch> <time>} when it starts and {@code END <slot> <time>} after
 * its commit. The lease TTL is the application's ({@code tenure.lease.ttl}, 30 s by default).
 */
public class SlowSettlement {

    private final DataSource dataSource;
    private final Duration work;

    public SlowSettlement(DataSource dataSource, Duration work) {
        this.dataSource = dataSource;
        this.work = work;
    }

    @Scheduled(cron = "* * * * * *", zone = "UTC")
    @Coordinated("hand-over")
    public void settle() throws SQLException, InterruptedException {
        JobContext run = JobContext.current();
        System.out.println("BEGIN " + run.fireKey() + " " + run.owner() + " " + run.epoch() + " " + Instant.now());
        Thread.sleep(work.toMillis());
        run.completeInTransaction(dataSource, c -> {
            try (var insert =
                    c.prepareStatement("INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'slow')")) {
                insert.setString(1, run.fireKey());
                insert.setLong(2, run.epoch());
                return insert.executeUpdate();
            }
        });
        System.out.println("END " + run.fireKey() + " " + Instant.now());
    }
}
