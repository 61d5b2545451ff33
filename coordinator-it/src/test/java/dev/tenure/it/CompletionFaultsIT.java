package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.DatabaseConfig;
import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.PoolConfig;
import dev.tenure.db.TenureDataSources;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, acceptance 2: the connection that records the outcome is killed by the server ({@code pg_terminate_backend})
 * between the business commit and {@code finish}; the fire is then retried. Because the fire completed in the business
 * transaction, the retry does not run it again and reports the earlier completion.
 */
class CompletionFaultsIT {

    private static CoordinatorServers servers;
    private static HikariDataSource tenurePool;
    private static TerminatingDataSource ledgerSource;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(CompletionFaultsIT.class);
        servers.execute("CREATE TABLE business_effects (fire_key text NOT NULL, epoch bigint NOT NULL)");
        tenurePool = TenureDataSources.hikari(PoolConfig.builder(servers.db.jdbcUrl())
                .user(servers.db.username())
                .password(servers.db.password())
                .applicationName("tenure-ledger")
                .build());
        ledgerSource = new TerminatingDataSource(tenurePool, servers.db.dataSource());
    }

    @AfterAll
    static void stop() {
        tenurePool.close();
        servers.close();
    }

    @Test
    void backendKilledBetweenTheBusinessCommitAndFinish_theRetryDoesNotRunTheFireAgain() throws Exception {
        try (Tenure tenure = Tenure.builder()
                .dataSource(ledgerSource)
                .migrateSchema(false)
                .database(DatabaseConfig.builder().listen(false).build())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .build()) {
            JobCoordinator c = tenure.coordinator();
            DataSource business = servers.db.dataSource();
            assertThatThrownBy(() -> c.run("settle", "2026-12-03T10:00Z", RunPolicy.skipFire(), ctx -> {
                        ctx.completeInTransaction(business, conn -> insert(conn, "2026-12-03T10:00Z", ctx.epoch()));
                        ledgerSource
                                .terminateNextConnection(); // the connection finish borrows next dies with its backend
                        return null;
                    }))
                    .as("finish could not record the outcome")
                    .isInstanceOf(LeaseStoreUnavailableException.class);
            assertThat(ledgerSource.terminated())
                    .as("a backend was really terminated")
                    .isTrue();

            RunOutcome<Object> retry = c.run("settle", "2026-12-03T10:00Z", RunPolicy.returnEarlierOutcome(), ctx -> {
                insert(null, "ran again", ctx.epoch());
                return null;
            });
            System.out.printf(
                    "retry after the killed finish: %s (earlier epoch %d by %s)%n",
                    retry.status(), retry.epoch(), retry.owner());
            assertThat(retry.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat(retry.epoch()).as("the earlier completion is reported").isPositive();
            assertThat(servers.count("SELECT count(*) FROM business_effects"))
                    .as("business rows")
                    .isEqualTo(1);
            assertThat(servers.count(
                            "SELECT count(*) FROM tenure.job_runs WHERE job_key = 'settle' AND status = 'COMPLETED'"))
                    .isEqualTo(1);
        }
    }

    private static int insert(Connection conn, String fire, long epoch) throws SQLException {
        if (conn == null) {
            throw new AssertionError("the fire ran again");
        }
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO business_effects VALUES (?, ?)")) {
            ps.setString(1, fire);
            ps.setLong(2, epoch);
            return ps.executeUpdate();
        }
    }

    /** Hands out pooled connections; when armed, the server terminates the next one's backend before it is handed out. */
    private static final class TerminatingDataSource implements DataSource {
        private final DataSource pool;
        private final DataSource admin;
        private final AtomicBoolean armed = new AtomicBoolean();
        private final AtomicBoolean terminated = new AtomicBoolean();

        TerminatingDataSource(DataSource pool, DataSource admin) {
            this.pool = pool;
            this.admin = admin;
        }

        void terminateNextConnection() {
            armed.set(true);
        }

        boolean terminated() {
            return terminated.get();
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection c = pool.getConnection();
            if (armed.compareAndSet(true, false)) {
                int pid;
                try (Statement s = c.createStatement();
                        ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
                    r.next();
                    pid = r.getInt(1);
                }
                try (Connection a = admin.getConnection();
                        Statement s = a.createStatement();
                        ResultSet r = s.executeQuery("SELECT pg_terminate_backend(" + pid + ")")) {
                    r.next();
                    terminated.set(r.getBoolean(1));
                }
            }
            return c;
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            throw new SQLException("not supported");
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
