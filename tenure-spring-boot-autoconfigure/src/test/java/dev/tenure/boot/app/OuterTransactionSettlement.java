package dev.tenure.boot.app;

import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * A {@code @Transactional} service that calls {@code runInTransaction} inside its own transaction: the run's work and
 * completion join it, and the service writes before and after the run.
 */
public class OuterTransactionSettlement {

    private final Tenure tenure;
    private final DataSource dataSource;
    private final JdbcTemplate jdbc;

    public OuterTransactionSettlement(Tenure tenure, DataSource dataSource) {
        this.tenure = tenure;
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    /** The run of {@code fireKey} of job {@code jobKey} in this method's transaction; throws after it if {@code fail}. */
    @Transactional
    public RunOutcome<Integer> settle(String jobKey, String fireKey, boolean fail) {
        jdbc.update("INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, 0, 'outer-before')", fireKey);
        RunOutcome<Integer> o = tenure.coordinator()
                .runInTransaction(
                        jobKey,
                        fireKey,
                        RunPolicy.skipFire(),
                        dataSource,
                        (run, c) -> jdbc.update(
                                "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'outer-work')",
                                run.fireKey(),
                                run.epoch()));
        if (fail) {
            throw new IllegalStateException("the service fails after the run");
        }
        return o;
    }
}
