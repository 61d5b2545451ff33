package dev.tenure.db;

import dev.tenure.spi.RunLedger;
import dev.tenure.testkit.RunLedgerContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The RunLedger contract on {@link JdbcRunLedger} over a fresh Postgres database: epochs from {@link JdbcLeaseStore#claim},
 * completions in real pooled transactions (autocommit off) that the contract commits or rolls back.
 */
class JdbcRunLedgerContractIT extends RunLedgerContract {

    private static Fixture fx;
    private static JdbcBackend.Siblings stores;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(JdbcRunLedgerContractIT.class);
        stores = Fixture.open(fx.pool, Fixture.NO_LISTEN);
    }

    @AfterAll
    static void stop() {
        stores.close();
        fx.close();
    }

    @Override
    protected RunLedger ledger() {
        return stores.runs();
    }

    @Override
    protected long claim(String jobKey, String owner) {
        if (stores.leases().claim(jobKey, owner, Duration.ofSeconds(30)) instanceof ClaimResult.Claimed c) {
            return c.epoch();
        }
        throw new AssertionError("job " + jobKey + " is held");
    }

    /** The lease runs out now by the database clock; epoch and owner stay, as after a real expiry. */
    @Override
    protected void expire(String jobKey) {
        try (Connection c = fx.pool.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "UPDATE \"" + TenureSchema.DEFAULT_SCHEMA
                                + "\".job_execution SET lease_expires_at = clock_timestamp() WHERE job_key = ? AND owner IS NOT NULL")) {
            ps.setString(1, jobKey);
            if (ps.executeUpdate() != 1) {
                throw new AssertionError("job " + jobKey + " has no lease to expire");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("expiring the lease of " + jobKey + ": " + e.getMessage(), e);
        }
    }

    /**
     * The row the sweeper writes for a running fire whose lease ended (JdbcScheduleLedger's recordMissed): MISSED under a
     * run id of its own, the holder's run (which its job row carries) kept as the previous one, under the holder's epoch.
     */
    @Override
    protected boolean recordMissed(String jobKey, String fireKey) throws SQLException {
        String q = "\"" + TenureSchema.DEFAULT_SCHEMA + "\"";
        try (Connection c = fx.pool.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + q + ".job_run (run_id, job_key, fire_key, "
                        + "epoch, owner, status, started_at, finished_at, error, previous_run_id, previous_status) "
                        + "SELECT gen_random_uuid(), job_key, run_fire_key, fencing_token, 'sweeper', 'MISSED', "
                        + "clock_timestamp(), clock_timestamp(), 'contract: missed', current_run_id, 'RUNNING' FROM "
                        + q
                        + ".job_execution WHERE job_key = ? AND run_fire_key = ? AND status = 'RUNNING'")) {
            ps.setString(1, jobKey);
            ps.setString(2, fireKey);
            if (ps.executeUpdate() != 1) {
                throw new AssertionError("fire " + fireKey + " of " + jobKey + " has no RUNNING run");
            }
        }
        return true;
    }

    @Override
    protected Connection openTransaction() throws SQLException {
        Connection c = fx.pool.getConnection();
        c.setAutoCommit(false);
        return c;
    }

    @Override
    protected boolean transactional() {
        return true;
    }
}
