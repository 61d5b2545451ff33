package dev.tenure.db;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fence check and the completions limit how long the caller's transaction may stay idle, local to that
 * transaction: the server ends a transaction idle for longer (its writes roll back), a shorter limit of the session
 * stays, and the connection is back to its own setting after the commit.
 */
class IdleLimitIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(IdleLimitIT.class);
        fx.execute("CREATE TABLE public.idle_write (job_key text)");
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static String setting(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('idle_in_transaction_session_timeout')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static long claim(String key) {
        return ((ClaimResult.Claimed) fx.ledger.claim(key, "a", Duration.ofSeconds(30))).epoch();
    }

    @Test
    void fence_setsTheLimitForItsTransactionOnly() throws Exception {
        String key = "idle-" + UUID.randomUUID();
        long epoch = claim(key);
        try (Connection c = fx.connect()) {
            c.setAutoCommit(false);
            fx.ledger.fence(c, key, epoch, "a", Duration.ofMillis(1500));
            assertThat(setting(c)).isEqualTo("1500ms");
            c.commit();
            assertThat(setting(c)).as("after the commit").isEqualTo("0");
        }
    }

    @Test
    void completion_keepsAShorterLimitOfTheSession() throws Exception {
        String key = "idle-" + UUID.randomUUID();
        long epoch = claim(key);
        UUID run = ((RunStart.Started) fx.ledger.startRun(key, "f", epoch, "a")).runId();
        try (Connection c = fx.connect()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET idle_in_transaction_session_timeout = '700ms'");
            }
            c.setAutoCommit(false);
            fx.ledger.complete(c, key, epoch, "a", run, Duration.ofSeconds(5));
            assertThat(setting(c)).isEqualTo("700ms");
            c.rollback();
        }
    }

    @Test
    void transactionIdleLongerThanTheLimit_isEndedByTheServer_andItsWritesRollBack() throws Exception {
        String key = "idle-" + UUID.randomUUID();
        long epoch = claim(key);
        try (Connection c = fx.connect()) {
            c.setAutoCommit(false);
            fx.ledger.fence(c, key, epoch, "a", Duration.ofMillis(300));
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO public.idle_write VALUES ('" + key + "')");
            }
            Thread.sleep(1000);
            assertThatThrownBy(c::commit).isInstanceOf(SQLException.class);
        }
        assertThat(fx.query("SELECT count(*) FROM public.idle_write WHERE job_key = '" + key + "'")).containsExactly("0");
    }
}
