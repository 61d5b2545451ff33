package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.DatabaseConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A claim held up by a fenced transaction after the lease expired ends that transaction if it sits idle (its holder
 * frozen), and claims; a live lease's transaction, another job's, or a transaction not fenced is never ended.
 */
class StaleFencesIT {

    private static Fixture fx;
    private static JdbcBackend.Siblings stores;
    private static JdbcLeaseStore leases;
    private static JdbcRunLedger runs;
    /** The rows under {@link #leases}, with the same claim lock timeout. */
    private static LeaseRows rows;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(StaleFencesIT.class);
        DatabaseConfig config = DatabaseConfig.builder()
                .claimLockTimeout(Duration.ofMillis(300))
                .listen(false)
                .build();
        stores = Fixture.open(fx.pool, config);
        leases = stores.leases();
        runs = stores.runs();
        rows = Fixture.rows(fx.pool, config);
        fx.execute("CREATE TABLE public.fenced_write (job_key text)");
    }

    @AfterAll
    static void stop() {
        stores.close();
        fx.close();
    }

    private static String key() {
        return "stale-" + UUID.randomUUID();
    }

    /**
     * A lease that ends soon, but not before the transaction that fences it is open: a 300 ms lease once ended under two
     * busy loops before the fence, which then refused it as stale.
     */
    private static final Duration SHORT = Duration.ofMillis(1500);

    private static long claim(String key, String owner, Duration ttl) {
        ClaimResult r = leases.claim(key, owner, ttl);
        assertThat(r).as("claim of %s by %s", key, owner).isInstanceOf(ClaimResult.Claimed.class);
        return ((ClaimResult.Claimed) r).epoch();
    }

    /** Opens a transaction that fences {@code key} for {@code owner}, writes one row, and stays open (idle). */
    private static Connection idleFenced(String key, long epoch, String owner) throws SQLException {
        Connection c = fx.connect();
        c.setAutoCommit(false);
        runs.fence(c, key, epoch, owner);
        try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO public.fenced_write VALUES ('" + key + "')");
        }
        return c;
    }

    private static long rows(String key) {
        return Long.parseLong(fx.query("SELECT count(*) FROM public.fenced_write WHERE job_key = '" + key + "'")
                .get(0));
    }

    @Test
    void claim_expiredLeaseHeldUpByAnIdleFencedTransaction_endsItAndClaims_andItsWritesRollBack() throws Exception {
        String key = key();
        long a = claim(key, "a", SHORT);
        try (Connection frozen = idleFenced(key, a, "a")) {
            Thread.sleep(SHORT.toMillis() + 300); // outlasts the short lease
            long b = claim(key, "b", Duration.ofSeconds(30));
            assertThat(b).isGreaterThan(a);
            assertThatThrownBy(frozen::commit)
                    .as("the ended transaction's commit")
                    .isInstanceOf(SQLException.class);
        }
        assertThat(rows(key)).as("its write").isZero();
    }

    @Test
    void liveLease_itsIdleFencedTransactionIsNotEnded() throws Exception {
        String key = key();
        long a = claim(key, "a", Duration.ofSeconds(30));
        try (Connection live = idleFenced(key, a, "a")) {
            assertThat(rows.endStaleFences(key)).isFalse();
            assertThat(leases.claim(key, "b", Duration.ofSeconds(30))).isInstanceOf(ClaimResult.Held.class);
            live.commit();
        }
        assertThat(rows(key)).isEqualTo(1);
    }

    @Test
    void anotherJobsOrAnUnfencedIdleTransaction_isNotEnded() throws Exception {
        String key = key();
        String other = key();
        long o = claim(other, "o", SHORT);
        try (Connection otherJob = idleFenced(other, o, "o");
                Connection unfenced = fx.connect()) {
            unfenced.setAutoCommit(false);
            try (Statement s = unfenced.createStatement()) {
                s.execute("SELECT * FROM tenure.job_execution WHERE job_key = '" + other + "' FOR KEY SHARE");
                s.execute("INSERT INTO public.fenced_write VALUES ('" + key + "')");
            }
            claim(key, "a", SHORT);
            Thread.sleep(SHORT.toMillis() + 300); // both leases expire
            assertThat(rows.endStaleFences(key)).as("ends for another job").isFalse();
            unfenced.commit();
            otherJob.commit();
        }
        assertThat(rows(key)).isEqualTo(1);
        assertThat(rows(other)).isEqualTo(1);
    }
}
