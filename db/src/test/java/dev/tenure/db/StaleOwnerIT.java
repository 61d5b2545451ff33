package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.StaleOwnerException;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2: a stale owner's fenced writes roll back; and a newer claim waits for the older owner's open fenced
 * transaction, so the older owner's writes commit before the hand-over.
 */
class StaleOwnerIT {

    private static Fixture fx;
    private static JdbcLeaseStore leases;
    private static JdbcRunLedger runs;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(StaleOwnerIT.class);
        leases = fx.leases;
        runs = fx.runs;
        fx.execute("CREATE TABLE public.settlement (job_key text, writer text, epoch bigint, "
                + "written_at timestamptz DEFAULT clock_timestamp())");
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static String key() {
        return "settle-" + UUID.randomUUID();
    }

    private static void write(Connection tx, String key, String writer, long epoch) throws Exception {
        try (PreparedStatement ps =
                tx.prepareStatement("INSERT INTO public.settlement (job_key, writer, epoch) VALUES (?, ?, ?)")) {
            ps.setString(1, key);
            ps.setString(2, writer);
            ps.setLong(3, epoch);
            ps.executeUpdate();
        }
    }

    private static String writers(String key) {
        return String.join(
                ",",
                fx.query("SELECT writer || ':' || epoch FROM public.settlement WHERE job_key = '" + key
                        + "' ORDER BY written_at"));
    }

    @Test
    void expiredOwner_fencedWriteRollsBack_newOwnerCommits() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "A", Duration.ofMillis(300))).epoch();
        Awaitility.await()
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> leases.holder(key).isEmpty());
        long b = ((ClaimResult.Claimed) leases.claim(key, "B", Duration.ofSeconds(10))).epoch();
        assertThat(b).isGreaterThan(n);

        try (Connection a = fx.pool.getConnection()) {
            a.setAutoCommit(false);
            write(a, key, "A", n); // the stale owner writes first ...
            assertThatThrownBy(() -> runs.fence(a, key, n, "A")) // ... and the fence check before commit refuses
                    .isInstanceOfSatisfying(StaleOwnerException.class, e -> {
                        assertThat(e.key()).isEqualTo(key);
                        assertThat(e.expectedEpoch()).isEqualTo(n);
                        assertThat(e.currentEpoch()).isEqualTo(b);
                        assertThat(e.currentOwner()).isEqualTo("B");
                    });
            a.rollback();
        }
        try (Connection bTx = fx.pool.getConnection()) {
            bTx.setAutoCommit(false);
            runs.fence(bTx, key, b, "B");
            write(bTx, key, "B", b);
            bTx.commit();
        }
        assertThat(writers(key)).isEqualTo("B:" + b);
        assertThat(leases.releaseEpoch(key, n, "A"))
                .as("the stale owner cannot release")
                .isEmpty();
        assertThat(leases.renewEpoch(key, n, "A", Duration.ofSeconds(10)))
                .as("nor renew")
                .isFalse();
    }

    @Test
    void expiredButUnclaimedLease_failsTheFenceToo() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "A", Duration.ofMillis(100))).epoch();
        Thread.sleep(200);
        try (Connection a = fx.pool.getConnection()) {
            a.setAutoCommit(false);
            assertThatThrownBy(() -> runs.fence(a, key, n, "A"))
                    .isInstanceOfSatisfying(
                            StaleOwnerException.class,
                            e -> assertThat(e.expired()).isTrue());
            a.rollback();
        }
    }

    @Test
    void openFencedTransaction_makesTheNextClaimWait_olderWritesCommitFirst() throws Exception {
        String key = key();
        ClaimResult.Claimed a = (ClaimResult.Claimed) leases.claim(key, "A", Duration.ofMillis(700));
        long n = a.epoch();
        long holdMillis = 2000;
        CompletableFuture<Instant> aCommitted = new CompletableFuture<>();
        Thread holder = new Thread(() -> {
            try (Connection tx = fx.pool.getConnection()) {
                tx.setAutoCommit(false);
                runs.fence(tx, key, n, "A"); // live now: passes, and locks the row FOR KEY SHARE
                write(tx, key, "A", n);
                try (Statement busy = tx.createStatement()) { // the lease expires meanwhile (700 ms); a holder
                    busy.execute("SELECT pg_sleep(" + holdMillis / 1000.0 + ")"); // running a statement is never ended
                }
                write(tx, key, "A-late", n);
                tx.commit();
                aCommitted.complete(Instant.now());
            } catch (Exception e) {
                aCommitted.completeExceptionally(e);
            }
        });
        holder.start();
        Thread.sleep(1000); // A's lease has expired by the database clock
        assertThat(leases.holder(key)).isEmpty();
        assertThat(aCommitted).isNotDone();

        long started = System.nanoTime();
        ClaimResult r = leases.claim(key, "B", Duration.ofSeconds(10)); // must wait for A's transaction
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        aCommitted.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);

        assertThat(r).isInstanceOf(ClaimResult.Claimed.class);
        ClaimResult.Claimed b = (ClaimResult.Claimed) r;
        Instant aLastWrite = lastWrite(key, "A-late");
        System.out.printf(
                "reverse interleaving: B's claim waited %d ms (A held its fenced transaction %d ms, "
                        + "B started 1000 ms in); A's last write %s < B claimed %s; epochs %d -> %d%n",
                waitedMillis, holdMillis, aLastWrite, b.claimedAt(), n, b.epoch());
        assertThat(waitedMillis)
                .as("B's claim was blocked until A committed")
                .isGreaterThanOrEqualTo(holdMillis - 1000 - 100);
        assertThat(b.epoch()).isGreaterThan(n);
        assertThat(b.claimedAt())
                .as("B's claim took effect after A's last write")
                .isAfter(aLastWrite);
        assertThat(writers(key)).isEqualTo("A:" + n + ",A-late:" + n);

        try (Connection tx = fx.pool.getConnection()) { // from now on A is stale
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> runs.fence(tx, key, n, "A")).isInstanceOf(StaleOwnerException.class);
            tx.rollback();
        }
    }

    @Test
    void openFencedTransaction_liveLease_otherClaimsAnswerHeldAtOnce() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "A", Duration.ofSeconds(10))).epoch();
        try (Connection tx = fx.pool.getConnection()) {
            tx.setAutoCommit(false);
            runs.fence(tx, key, n, "A");
            long started = System.nanoTime();
            ClaimResult r = leases.claim(key, "B", Duration.ofSeconds(10));
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(r)
                    .isInstanceOfSatisfying(
                            ClaimResult.Held.class, h -> assertThat(h.owner()).isEqualTo("A"));
            assertThat(tookMillis)
                    .as("a live lease is reported without waiting for row locks")
                    .isLessThan(Timing.scaledMillis(1000));
            tx.commit();
        }
    }

    private static Instant lastWrite(String key, String writer) throws Exception {
        try (Connection c = fx.connect();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT written_at FROM public.settlement WHERE job_key = ? AND writer = ?")) {
            ps.setString(1, key);
            ps.setString(2, writer);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class).toInstant();
            }
        }
    }

    /**
     * Issue 10, seam m: a Postgres failover that loses acknowledged commits (an asynchronous standby promoted) rolls
     * the job row back under a live holder. Simulated from outside: the row and the run row are put back to what they
     * were before A's claim, and B claims. B's epoch is still above A's (epochs follow the database clock), and A's
     * fence, renewal, completion and outcome are all refused.
     */
    @Test
    void rowRolledBackByALossyFailover_anotherClaims_theOldHolderIsRefusedEverywhere() throws Exception {
        String key = key();
        long before = ((ClaimResult.Claimed) leases.claim(key, "Z", Duration.ofSeconds(10))).epoch();
        leases.releaseIfOwner(key, "Z");
        long n = ((ClaimResult.Claimed) leases.claim(key, "A", Duration.ofSeconds(10))).epoch();
        RunStart.Started run = (RunStart.Started) runs.start(key, "fire-1", n, "A");
        fx.execute("UPDATE tenure.job_execution SET fencing_token = " + before + ", owner = NULL, status = 'IDLE', "
                + "lease_expires_at = NULL, " + Sql.NO_RUN + " WHERE job_key = '" + key + "'");
        fx.execute("DELETE FROM tenure.job_run WHERE run_id = '" + run.runId() + "'"); // none: the run had no row yet

        long m = ((ClaimResult.Claimed) leases.claim(key, "B", Duration.ofSeconds(10))).epoch();
        System.out.printf(
                "lossy failover: epochs %d (lost) -> %d (A, lost with the old primary) -> %d (B)%n", before, n, m);
        assertThat(m).as("the new claim's epoch is above the lost one").isGreaterThan(n);
        assertOldHolderRefused(key, n, run);
        assertThat(leases.holder(key)).get().extracting(JobHolder::owner).isEqualTo("B");
    }

    /** The same, if an epoch were handed out twice (as plain +1 epochs would after such a failover): the owner decides. */
    @Test
    void sameEpochHandedToAnotherOwner_theOldHolderIsRefusedEverywhere() throws Exception {
        String key = key();
        long n = ((ClaimResult.Claimed) leases.claim(key, "A", Duration.ofSeconds(10))).epoch();
        RunStart.Started run = (RunStart.Started) runs.start(key, "fire-1", n, "A");
        fx.execute(
                "UPDATE tenure.job_execution SET owner = 'B', lease_expires_at = clock_timestamp() + interval '10 seconds' "
                        + "WHERE job_key = '" + key + "'");
        assertOldHolderRefused(key, n, run);
        try (Connection tx = fx.pool.getConnection()) {
            tx.setAutoCommit(false);
            runs.fence(tx, key, n, "B");
            tx.rollback();
        }
        assertThat(leases.renewEpoch(key, n, "B", Duration.ofSeconds(10))).isTrue();
    }

    private static void assertOldHolderRefused(String key, long n, RunStart.Started run) throws Exception {
        try (Connection tx = fx.pool.getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> runs.fence(tx, key, n, "A")).as("fence").isInstanceOf(StaleOwnerException.class);
            tx.rollback();
            assertThatThrownBy(() -> runs.complete(tx, key, n, "A", run.runId()))
                    .as("complete")
                    .isInstanceOf(StaleOwnerException.class);
            tx.rollback();
        }
        assertThat(leases.renewEpoch(key, n, "A", Duration.ofSeconds(10)))
                .as("renewal")
                .isFalse();
        assertThat(runs.finish(key, n, "A", run.runId(), RunStatus.COMPLETED, null))
                .as("outcome")
                .isEqualTo(dev.tenure.spi.RunLedger.Finished.STALE);
        assertThat(leases.releaseEpoch(key, n, "A")).as("release").isEmpty();
        assertThat(runs.completedRun(key, "fire-1")).isEmpty();
    }
}
