package dev.tenure.boot.app;

import dev.tenure.JobContext;
import dev.tenure.RunOutcome;
import dev.tenure.boot.CoordinatedRunListener;
import dev.tenure.testkit.ValkeyServer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * What happened around each fire, in order, per fire key: the claim (seen by a {@link CoordinatedRunListener}), the
 * method's own records, and the end of the run. "Lease held" asks the stores themselves: the job's database row still
 * names this run's owner, and the job's Valkey lease key still exists.
 */
public class Events implements CoordinatedRunListener {

    private final Map<String, List<String>> byFire = new ConcurrentHashMap<>();
    private final Map<String, RunOutcome<?>> outcomes = new ConcurrentHashMap<>();
    private final JdbcTemplate jdbc;
    private final ValkeyServer valkey;

    public Events(DataSource dataSource, ValkeyServer valkey) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.valkey = valkey;
    }

    @Override
    public void claimed(JobContext run) {
        record(
                run.fireKey(),
                "claimed: transaction active " + TransactionSynchronizationManager.isActualTransactionActive()
                        + ", lease held " + leaseHeld(run.jobKey(), run.owner()));
    }

    @Override
    public void finished(RunOutcome<?> outcome) {
        outcomes.put(outcome.jobKey() + "/" + outcome.fireKey(), outcome);
        record(
                outcome.fireKey(),
                "finished " + outcome.status() + ": lease held " + leaseHeld(outcome.jobKey(), outcome.owner()));
    }

    public void record(String fireKey, String event) {
        byFire.computeIfAbsent(fireKey, k -> new CopyOnWriteArrayList<>()).add(event);
    }

    public Map<String, List<String>> byFire() {
        return byFire;
    }

    public RunOutcome<?> outcome(String jobKey, String fireKey) {
        return outcomes.get(jobKey + "/" + fireKey);
    }

    /** Both leases: the database row names {@code owner}, and the Valkey lease key holds a lease (not a fire's marker). */
    public boolean leaseHeld(String jobKey, String owner) {
        String dbOwner = jdbc.query(
                "SELECT owner FROM tenure.job_execution WHERE job_key = ?",
                rs -> rs.next() ? rs.getString(1) : null,
                jobKey);
        Object lease = valkey.command("GET", "{tenure:" + jobKey + "}:lease");
        return Objects.equals(dbOwner, owner)
                && lease != null
                && !lease.toString().startsWith("d:");
    }
}
