package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.JobContext;
import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.StaleOwnerException;
import dev.tenure.Tenure;
import dev.tenure.testkit.PacketFilter;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue item 9, a fire both run and recorded MISSED, end to end on real Postgres. A holder runs a fire of a SKIP job
 * through a Tenure whose path to Postgres a {@link PacketFilter} cuts ({@link RelayedTenure}), so its renewals fail for
 * longer than its TTL; a second Tenure, the only one that registers the job, sweeps. The holder's business write is a
 * fenced write in its own transaction ({@code ctx.fence(connection)}, an insert, a commit), as users write it with plain
 * JDBC or a JdbcTemplate.
 *
 * <ul>
 *   <li>Cut before the write: the sweeper records the fire MISSED and fences the holder (the job's epoch moves on in the
 *       same transaction), so the holder's write is refused and rolled back, and its outcome is LEASE_LOST.
 *   <li>The write committed under a live lease: while the run row says RUNNING under that lease, the fire is not
 *       recorded MISSED; the run ends EXECUTED and COMPLETED.
 *   <li>The write committed, then the holder is cut off past its TTL: the sweeper records the fire MISSED ("its
 *       holder's lease ended") and the holder's finish reports LEASE_LOST, never EXECUTED: holder and ledger agree
 *       that the fire did not complete. The business row stays: only a completion in the business transaction
 *       ({@code ctx.complete}) ties the two together.
 * </ul>
 */
class MissedRunningFireIT {

    private static final Duration RATE = Duration.ofSeconds(1);
    private static final Duration GRACE = Duration.ofMillis(300);
    private static final Duration TTL = Duration.ofSeconds(2);

    private static CoordinatorServers servers;
    private static PacketFilter filter;

    @BeforeAll
    static void start() throws Exception {
        filter = PacketFilter.create();
        servers = new CoordinatorServers(MissedRunningFireIT.class);
    }

    @AfterAll
    static void stop() {
        if (filter != null) {
            filter.close();
        }
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void cutOffPastItsTtl_theFireIsMissedAndTheHolderFenced_itsLaterFencedWriteIsRefused_leaseLost() throws Exception {
        String job = "missed-then-write";
        try (Tenure sweeper = sweeper(job);
                Holder holder = new Holder(false)) {
            String fire = holder.start(job);
            holder.relayed.cut();
            awaitRunRow(job, fire, "MISSED", TTL.plus(Duration.ofSeconds(4)));
            String why = error(job, fire);
            long epoch = epoch(job);
            holder.relayed.heal();
            RunOutcome<Object> o = holder.proceed();
            System.out.printf(
                    "fenced write after the sweeper recorded %s MISSED (%s): %s (%s); holder's epoch %d, the job's now %d%n",
                    fire, why, o.status(), o.error(), holder.epoch, epoch);
            assertThat(why).contains("its holder's lease ended");
            assertThat(epoch).as("the job's epoch after the MISSED record").isGreaterThan(holder.epoch);
            assertThat(o.error()).isInstanceOf(StaleOwnerException.class);
            assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
            assertThat(businessRows(job, fire)).as("the refused write").isZero();
            assertThat(runRow(job, fire)).isEqualTo("MISSED");
        }
    }

    @Test
    void writeCommittedUnderALiveLease_theRunningFireIsNotRecordedMissed_andTheRunCompletes() throws Exception {
        String job = "written-live";
        try (Tenure sweeper = sweeper(job);
                Holder holder = new Holder(true)) {
            String fire = holder.start(job);
            // the sweeper walks past the fire: the fires after it, which nobody runs, are recorded MISSED
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(6)))
                    .until(() -> servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + job
                                    + "' AND status = 'MISSED' AND fire_key > '" + fire + "'")
                            >= 2);
            assertThat(runRow(job, fire))
                    .as("the fire whose run holds a live lease")
                    .isEqualTo("RUNNING");
            assertThat(servers.one("SELECT lease_expires_at > clock_timestamp() FROM tenure.job_execution "
                            + "WHERE job_key = '" + job + "'"))
                    .isEqualTo("t");
            RunOutcome<Object> o = holder.proceed();
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> "t"
                            .equals(servers.one("SELECT swept_until >= '" + fire + "'::timestamptz FROM "
                                    + "tenure.job_schedule WHERE job_key = '" + job + "'")));
            System.out.printf(
                    "fenced write committed under a live lease: %s, run row %s%n", o.status(), runRow(job, fire));
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(runRow(job, fire)).isEqualTo("COMPLETED");
            assertThat(businessRows(job, fire)).isEqualTo(1);
        }
    }

    @Test
    void writeCommittedThenCutOffPastItsTtl_theFireIsMissed_andTheHoldersFinishIsLeaseLostNotExecuted()
            throws Exception {
        String job = "written-then-cut";
        try (Tenure sweeper = sweeper(job);
                Holder holder = new Holder(true)) {
            String fire = holder.start(job);
            holder.relayed.cut();
            awaitRunRow(job, fire, "MISSED", TTL.plus(Duration.ofSeconds(4)));
            String why = error(job, fire);
            long epoch = epoch(job);
            holder.relayed.heal();
            RunOutcome<Object> o = holder.proceed();
            System.out.printf(
                    "fenced write committed, then cut off: %s recorded MISSED (%s); the holder's finish: %s%n",
                    fire, why, o.status());
            assertThat(why).contains("its holder's lease ended");
            assertThat(epoch).as("the job's epoch after the MISSED record").isGreaterThan(holder.epoch);
            assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
            assertThat(runRow(job, fire)).isEqualTo("MISSED");
            assertThat(businessRows(job, fire))
                    .as("the write committed under the holder's live lease")
                    .isEqualTo(1);
        }
    }

    /**
     * The fence check passed before the cut and its transaction stays open past the TTL: its KEY SHARE lock holds the
     * sweeper's fence back as it holds back a claim, so the fire is not recorded MISSED and the epoch does not move
     * while the transaction is open; its write commits first, and only then is the fire recorded MISSED (a fence-only
     * write: the business row and the MISSED record, as in the case above). Before, the sweeper moved the epoch on
     * under the open transaction, whose write then committed after the fence had moved.
     */
    @Test
    void aFencedTransactionOpenPastTheTtl_holdsTheSweepersFenceBack_itsWriteCommitsBeforeTheFenceMoves()
            throws Exception {
        String job = "open-fenced";
        CountDownLatch fenced = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        long[] epochs = new long[1];
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (Tenure sweeper = sweeper(job);
                RelayedTenure relayed = new RelayedTenure(servers, filter, TTL)) {
            long period = RATE.toMillis();
            long slot = (System.currentTimeMillis() / period + 2) * period;
            String fire = Instant.ofEpochMilli(slot).toString();
            Future<RunOutcome<Object>> outcome = thread.submit(() -> {
                Thread.sleep(Math.max(0, slot - System.currentTimeMillis()));
                return relayed.tenure().coordinator().run(job, fire, RunPolicy.skipFire(), ctx -> {
                    epochs[0] = ctx.epoch();
                    try (Connection c = servers.db.dataSource().getConnection()) {
                        c.setAutoCommit(false);
                        ctx.fence(c);
                        try (PreparedStatement ps =
                                c.prepareStatement("INSERT INTO business_ledger(fire_key, epoch) VALUES (?, ?)")) {
                            ps.setString(1, job + "/" + fire);
                            ps.setLong(2, ctx.epoch());
                            ps.executeUpdate();
                        }
                        fenced.countDown();
                        commit.await();
                        c.commit();
                    }
                    return null;
                });
            });
            assertThat(fenced.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                    .as("the holder's fence check passed")
                    .isTrue();
            relayed.cut(); // renewals fail: the lease ends while the fenced transaction is open
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(8)))
                    .until(() -> "t"
                            .equals(servers.one(
                                    "SELECT lease_expires_at IS NULL OR lease_expires_at < clock_timestamp() "
                                            + "FROM tenure.job_execution WHERE job_key = '" + job + "'")));
            // the sweeper walks past it while the transaction is open: later fires are recorded, this one is not
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(6)))
                    .until(() -> servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + job
                                    + "' AND status = 'MISSED' AND fire_key > '" + fire + "'")
                            >= 2);
            assertThat(runRow(job, fire))
                    .as("the fire of the open fenced transaction")
                    .isEqualTo("RUNNING");
            assertThat(epoch(job))
                    .as("the job's epoch while the fenced transaction is open")
                    .isEqualTo(epochs[0]);
            commit.countDown();
            awaitRunRow(job, fire, "MISSED", Duration.ofSeconds(6));
            assertThat(epoch(job))
                    .as("the job's epoch after the commit and the MISSED record")
                    .isGreaterThan(epochs[0]);
            relayed.heal();
            RunOutcome<Object> o = outcome.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
            System.out.printf(
                    "fenced transaction open past the TTL: not recorded MISSED while open; after its commit %s, holder %s%n",
                    runRow(job, fire), o.status());
            assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
            assertThat(businessRows(job, fire))
                    .as("the write committed before the fence moved")
                    .isEqualTo(1);
        } finally {
            commit.countDown();
            thread.shutdownNow();
        }
    }

    /** The only Tenure that registers the job (SKIP): it sweeps, and runs nothing. */
    private static Tenure sweeper(String job) {
        Tenure t = Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(TTL))
                .sweepInterval(Duration.ofMillis(200))
                .build();
        t.register(ScheduledJob.of(job, Schedule.fixedRate(RATE), fire -> {
                    throw new AssertionError("SKIP never catches up");
                })
                .withPolicy(MissedFirePolicy.skip().withGrace(GRACE)));
        return t;
    }

    private static void awaitRunRow(String job, String fire, String status, Duration within) {
        Awaitility.await().atMost(Timing.scaled(within)).until(() -> status.equals(runRow(job, fire)));
    }

    private static String runRow(String job, String fire) throws SQLException {
        return servers.one(
                "SELECT status FROM tenure.job_runs WHERE job_key = '" + job + "' AND fire_key = '" + fire + "'");
    }

    private static String error(String job, String fire) throws SQLException {
        return servers.one(
                "SELECT error FROM tenure.job_runs WHERE job_key = '" + job + "' AND fire_key = '" + fire + "'");
    }

    private static long epoch(String job) throws SQLException {
        return servers.count("SELECT fencing_token FROM tenure.job_execution WHERE job_key = '" + job + "'");
    }

    private static long businessRows(String job, String fire) throws SQLException {
        return servers.count("SELECT count(*) FROM business_ledger WHERE fire_key = '" + job + "/" + fire + "'");
    }

    /** A fenced write as users write it: its own transaction, the fence check first, then the insert and the commit. */
    private static void fencedWrite(JobContext ctx, String key) throws SQLException {
        try (Connection c = servers.db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                ctx.fence(c);
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO business_ledger(fire_key, epoch) VALUES (?, ?)")) {
                    ps.setString(1, key);
                    ps.setLong(2, ctx.epoch());
                    ps.executeUpdate();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * A holder of the job's next slot on a {@link RelayedTenure}. Its work writes first ({@code writeFirst}) or not, and
     * then waits for {@link #proceed}; a holder that did not write first writes then.
     */
    private static final class Holder implements AutoCloseable {
        final RelayedTenure relayed = new RelayedTenure(servers, filter, TTL);
        private final boolean writeFirst;
        private final ExecutorService thread = Executors.newSingleThreadExecutor();
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch go = new CountDownLatch(1);
        private Future<RunOutcome<Object>> outcome;
        volatile long epoch;

        Holder(boolean writeFirst) {
            this.writeFirst = writeFirst;
        }

        /** Runs the job's next slot; returns its fire key once the work has begun (and written, if it writes first). */
        String start(String job) throws Exception {
            long period = RATE.toMillis();
            long slot = (System.currentTimeMillis() / period + 2) * period;
            String fire = Instant.ofEpochMilli(slot).toString();
            outcome = thread.submit(() -> {
                Thread.sleep(Math.max(0, slot - System.currentTimeMillis()));
                return relayed.tenure().coordinator().run(job, fire, RunPolicy.skipFire(), ctx -> {
                    epoch = ctx.epoch();
                    if (writeFirst) {
                        fencedWrite(ctx, job + "/" + fire);
                    }
                    started.countDown();
                    go.await(); // the test says when the work goes on
                    if (!writeFirst) {
                        fencedWrite(ctx, job + "/" + fire);
                    }
                    return null;
                });
            });
            assertThat(started.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                    .as("the holder's work began")
                    .isTrue();
            return fire;
        }

        RunOutcome<Object> proceed() throws Exception {
            go.countDown();
            return outcome.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            go.countDown();
            relayed.close();
            thread.shutdownNow();
        }
    }
}
