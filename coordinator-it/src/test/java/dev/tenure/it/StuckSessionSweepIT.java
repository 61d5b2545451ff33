package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.DatabaseConfig;
import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.testkit.PacketFilter;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
 * Issue item 7, one stuck session: a holder of job A completes its fire inside its business transaction
 * ({@code ctx.complete(connection)}, so its open transaction holds the fire's run row) and then stalls before the commit
 * while its renewals are cut off ({@link PacketFilter} on its own {@link TcpRelay} to Postgres), past its lease TTL.
 * Job B (SKIP) has fires that nobody runs. On real Postgres: B's fires are recorded MISSED sweep after sweep while A's
 * session is stuck, and A's fire is not recorded MISSED while its row is locked. When A's transaction finally commits,
 * its fire is COMPLETED; if another node claims A meanwhile, that claim ends the stuck transaction (rolled back) and the
 * fire is accounted MISSED. Either way nothing ran twice and no fire is left without a record.
 */
class StuckSessionSweepIT {

    private static final Duration RATE = Duration.ofSeconds(1);
    private static final Duration GRACE = Duration.ofMillis(300);
    private static final Duration SWEEP = Duration.ofMillis(200);
    private static final Duration TTL = Duration.ofSeconds(2);
    /** How late after its slot a MISSED record of job B may come: its grace, a few sweeps and a loaded machine. */
    private static final Duration PROMPT = Timing.scaled(GRACE.plus(Duration.ofMillis(1200)));

    private static CoordinatorServers servers;
    private static PacketFilter filter;

    @BeforeAll
    static void start() throws Exception {
        filter = PacketFilter.create();
        servers = new CoordinatorServers(StuckSessionSweepIT.class);
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
    void holderStallsBeforeItsCommitPastItsLease_theOtherJobIsAccountedEverySweep_andItsFireCompletesWhenItCommits()
            throws Exception {
        String a = "stuck-1";
        String b = "steady-1";
        try (Tenure sweeper = sweeper(a, b);
                Holder holder = new Holder()) {
            String fire = holder.runAndStall(a);
            holder.cut();
            Instant leaseEnded = awaitLeaseEnded(a);
            awaitMissedSince(b, leaseEnded, 3);

            assertThat(runRow(a, fire))
                    .as("A's fire while its stuck session holds the run row")
                    .isEqualTo("RUNNING");
            assertThat(servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + a
                            + "' AND status = 'MISSED' AND fire_key > '" + fire + "'"))
                    .as("A's later fires, which nobody runs, are accounted all the same")
                    .isPositive();
            assertPrompt(b, leaseEnded);

            holder.heal();
            RunOutcome<Object> o = holder.commit();
            awaitSweptPast(a, fire);
            System.out.printf(
                    "stuck holder of %s committed after its lease ended: %s; its run row %s; %s MISSED records of %s "
                            + "while it was stuck%n",
                    fire, o.status(), runRow(a, fire), missedSince(b, leaseEnded), b);
            assertThat(runRow(a, fire))
                    .as("A's fire once its completion committed")
                    .isEqualTo("COMPLETED");
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(businessRows(a, fire)).isEqualTo(1);
            assertEveryFireAccounted(a);
            assertEveryFireAccounted(b);
        }
    }

    @Test
    void holderStallsBeforeItsCommit_andAnotherNodeClaimsTheJob_theStuckTransactionEnds_andItsFireIsAccountedMissed()
            throws Exception {
        String a = "stuck-2";
        String b = "steady-2";
        try (Tenure sweeper = sweeper(a, b);
                Holder holder = new Holder();
                Tenure claimant = Tenure.builder()
                        .dataSource(servers.db.dataSource())
                        .migrateSchema(false)
                        .database(DatabaseConfig.builder().listen(false).build())
                        .leaseDefaults(LeaseOptions.ofTtl(TTL))
                        .build()) {
            String fire = holder.runAndStall(a);
            holder.cut();
            Instant leaseEnded = awaitLeaseEnded(a);

            // another node runs A's next slots: a claim waits for the stuck fenced transaction, ends it, and runs
            String claimed = null;
            long deadline =
                    System.nanoTime() + Timing.scaled(Duration.ofSeconds(20)).toNanos();
            while (claimed == null && System.nanoTime() < deadline) {
                long period = RATE.toMillis();
                long slot = (System.currentTimeMillis() / period + 1) * period;
                Thread.sleep(Math.max(0, slot - System.currentTimeMillis()));
                String next = Instant.ofEpochMilli(slot).toString();
                RunOutcome<Object> o = claimant.coordinator().run(a, next, RunPolicy.skipFire(), ctx -> {
                    FencedWrite.insert(servers.db.dataSource(), ctx, a + "/" + next);
                    return null;
                });
                System.out.println("another node runs " + next + " of " + a + ": " + o.status());
                claimed = o.executed() ? next : null;
            }
            assertThat(claimed).as("another node's run of A").isNotNull();
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> "MISSED".equals(runRow(a, fire)));
            awaitMissedSince(b, leaseEnded, 3);
            assertPrompt(b, leaseEnded);

            holder.heal();
            RunOutcome<Object> o = holder.commit();
            String why = servers.one(
                    "SELECT error FROM tenure.job_runs WHERE job_key = '" + a + "' AND fire_key = '" + fire + "'");
            System.out.printf(
                    "stuck holder of %s, its job claimed by another node: %s (%s); its fire: MISSED, %s%n",
                    fire, o.status(), o.error(), why);
            assertThat(o.status()).isNotEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(businessRows(a, fire))
                    .as("the stuck transaction's business write")
                    .isZero();
            assertThat(businessRows(a, claimed)).isEqualTo(1);
            assertThat(runRow(a, fire)).isEqualTo("MISSED");
            assertThat(runRow(a, claimed)).isEqualTo("COMPLETED");
            awaitSweptPast(a, claimed);
            assertEveryFireAccounted(a);
            assertEveryFireAccounted(b);
        }
    }

    /** The sweeping node: it registers both jobs (SKIP), runs none of them. */
    private static Tenure sweeper(String a, String b) {
        Tenure t = Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(TTL))
                .sweepInterval(SWEEP)
                .build();
        for (String job : List.of(a, b)) {
            t.register(ScheduledJob.of(job, Schedule.fixedRate(RATE), fire -> {
                        throw new AssertionError("SKIP never catches up");
                    })
                    .withPolicy(MissedFirePolicy.skip().withGrace(GRACE)));
        }
        return t;
    }

    /** Waits until the job's database lease has ended by the database's clock; returns that clock then. */
    private static Instant awaitLeaseEnded(String job) {
        Awaitility.await()
                .atMost(Timing.scaled(TTL.plus(Duration.ofSeconds(3))))
                .until(() -> "t"
                        .equals(servers.one("SELECT lease_expires_at <= clock_timestamp() FROM tenure.job_execution "
                                + "WHERE job_key = '" + job + "'")));
        try {
            return Instant.parse(servers.one(
                    "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', " + "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long missedSince(String job, Instant since) throws Exception {
        return servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + job
                + "' AND status = 'MISSED' AND fire_key::timestamptz > '" + since + "'");
    }

    private static void awaitMissedSince(String job, Instant since, int n) {
        Awaitility.await()
                .atMost(Timing.scaled(RATE.multipliedBy(n).plus(Duration.ofSeconds(3))))
                .until(() -> missedSince(job, since) >= n);
    }

    /** Every MISSED record of the job's fires due since {@code since} came within {@link #PROMPT} of its slot. */
    private static void assertPrompt(String job, Instant since) throws Exception {
        List<String> late = servers.strings("SELECT fire_key || ' recorded after ' || "
                + "(extract(epoch FROM finished_at - fire_key::timestamptz) * 1000)::bigint || ' ms' "
                + "FROM tenure.job_runs WHERE job_key = '" + job + "' AND status = 'MISSED' "
                + "AND fire_key::timestamptz > '" + since + "' "
                + "AND finished_at > fire_key::timestamptz + " + PROMPT.toMillis() + " * interval '1 millisecond'");
        assertThat(late).as("MISSED records of %s that came late", job).isEmpty();
    }

    private static void awaitSweptPast(String job, String fire) {
        Awaitility.await()
                .atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> "t"
                        .equals(servers.one("SELECT swept_until >= '" + fire + "'::timestamptz FROM "
                                + "tenure.job_schedule WHERE job_key = '" + job + "'")));
    }

    /** Between the job's first and last record, every slot has one row: nothing left unaccounted. */
    private static void assertEveryFireAccounted(String job) throws Exception {
        List<String> keys =
                servers.strings("SELECT fire_key FROM tenure.job_runs WHERE job_key = '" + job + "' ORDER BY fire_key");
        assertThat(keys).as("%s's records", job).isNotEmpty();
        Instant first = Instant.parse(keys.get(0));
        for (int i = 0; i < keys.size(); i++) {
            assertThat(keys.get(i))
                    .as("%s's records", job)
                    .isEqualTo(first.plus(RATE.multipliedBy(i)).toString());
        }
    }

    private static String runRow(String job, String fire) throws Exception {
        return servers.one(
                "SELECT status FROM tenure.job_runs WHERE job_key = '" + job + "' AND fire_key = '" + fire + "'");
    }

    private static long businessRows(String job, String fire) throws Exception {
        return servers.count("SELECT count(*) FROM business_ledger WHERE fire_key = '" + job + "/" + fire + "'");
    }

    /**
     * A holder whose Tenure reaches Postgres through a relay of its own ({@link RelayedTenure}: its renewals can be cut),
     * and whose business transaction goes straight to the database. Its work completes the fire in that transaction and
     * then stalls there, uncommitted, until {@link #commit}.
     */
    private static final class Holder implements AutoCloseable {
        private final RelayedTenure relayed = new RelayedTenure(servers, filter, TTL);
        private final Tenure tenure = relayed.tenure();
        private final ExecutorService thread = Executors.newSingleThreadExecutor();
        private final CountDownLatch completed = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private Future<RunOutcome<Object>> outcome;

        /** Runs the job's next slot and returns its fire key once the work has completed it, uncommitted. */
        String runAndStall(String job) throws Exception {
            long period = RATE.toMillis();
            long slot = (System.currentTimeMillis() / period + 2) * period;
            String fire = Instant.ofEpochMilli(slot).toString();
            outcome = thread.submit(() -> {
                Thread.sleep(Math.max(0, slot - System.currentTimeMillis()));
                return tenure.coordinator().run(job, fire, RunPolicy.skipFire(), ctx -> {
                    try (Connection c = servers.db.dataSource().getConnection()) {
                        c.setAutoCommit(false);
                        try (PreparedStatement ps =
                                c.prepareStatement("INSERT INTO business_ledger(fire_key, epoch) VALUES (?, ?)")) {
                            ps.setString(1, job + "/" + fire);
                            ps.setLong(2, ctx.epoch());
                            ps.executeUpdate();
                        }
                        ctx.complete(c);
                        completed.countDown();
                        release.await(); // stalled, the transaction open, until the test lets it commit
                        c.commit();
                    }
                    return null;
                });
            });
            assertThat(completed.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                    .as("the holder completed its fire in its open transaction")
                    .isTrue();
            return fire;
        }

        void cut() {
            relayed.cut();
        }

        void heal() {
            relayed.heal();
        }

        RunOutcome<Object> commit() throws Exception {
            release.countDown();
            return outcome.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            release.countDown();
            relayed.close();
            thread.shutdownNow();
        }
    }
}
