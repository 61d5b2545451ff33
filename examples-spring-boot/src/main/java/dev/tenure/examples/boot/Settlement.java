package dev.tenure.examples.boot;

import dev.tenure.JobContext;
import dev.tenure.boot.Coordinated;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** The settlement job: one instance settles each one-second slot, and writes it once. */
@Component
public class Settlement {

    private final DataSource dataSource;
    private final Ledger ledger;

    public Settlement(DataSource dataSource, Ledger ledger) {
        this.dataSource = dataSource;
        this.ledger = ledger;
    }

    // tag::settlement[]
    @Scheduled(cron = "* * * * * *", zone = "UTC")                       // every second; every instance names the slot alike
    @Coordinated(value = "settlement", ttl = "2s", maxWait = "500ms")   // one instance per slot
    public void settle() throws SQLException {
        JobContext run = JobContext.current();                           // this fire: slot (fire key), epoch, fence
        long amount = ledger.totalOf(run.fireKey());                     // the work, before any write
        run.completeInTransaction(dataSource, c ->                       // fence, insert, "slot done": one commit
                ledger.record(c, run.fireKey(), amount, run.epoch()));
    }
    // end::settlement[]
}
