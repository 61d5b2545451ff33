package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.Lease;
import dev.tenure.LeaseLostException;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.TenureException;
import dev.tenure.Ticker;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

// Over 400 lines: one contract's tests in one class, as JUnit runs them against each configuration that extends it.
/**
 * The behaviour every configuration of Tenure's leader election must have (database only; Valkey in front of the
 * database), on real servers. A configuration's test extends this and says how to build one participant's
 * {@link Tenure}; every participant gets its own Tenure, as a process would, and every test a fresh role, so one
 * database serves the whole class. The tests write to Tenure's {@code job_execution} table directly where they play an
 * outsider (a claim that supersedes the leader, a transaction that blocks its renewals).
 *
 * <p>Times are printed (hand-overs, revocations) and scaled by {@link Timing}. Not thread-safe: JUnit runs one test of
 * an instance at a time.
 */
public abstract class LeaderElectionContract {

    private static final LeaseOptions LONG = LeaseOptions.ofTtl(Duration.ofSeconds(30));
    private static final LeaseOptions SHORT = LeaseOptions.ofTtl(Duration.ofMillis(900));

    private final List<ElectionParticipant> participants = new ArrayList<>();

    /** A builder for one participant's Tenure: the data source set (schema migrated), Valkey set if configured. */
    protected abstract Tenure.Builder tenure();

    /** The database holding Tenure's tables. */
    protected abstract DataSource dataSource();

    /** The schema of Tenure's tables (default {@code tenure}). */
    protected String schema() {
        return "tenure";
    }

    /** A fresh role name. */
    protected static String role() {
        return "role-" + UUID.randomUUID();
    }

    /** A started participant with its own Tenure, closed after the test. */
    protected ElectionParticipant participant(
            String role, String label, LeaseOptions options, Ticker ticker, ElectionParticipant.Reaction reaction) {
        ElectionParticipant p =
                new ElectionParticipant(tenure().ticker(ticker).build(), role, label, options, reaction);
        participants.add(p);
        p.election().start();
        return p;
    }

    protected ElectionParticipant participant(String role, String label, LeaseOptions options) {
        return participant(role, label, options, Ticker.system(), ElectionParticipant.Reaction.NONE);
    }

    @AfterEach
    void closeParticipants() {
        participants.forEach(ElectionParticipant::close);
        participants.clear();
    }

    @Test
    void severalParticipants_oneLeaderAtATime_epochsGrowAcrossTerms() {
        String role = role();
        List<ElectionParticipant> all = new ArrayList<>();
        for (String label : List.of("p1", "p2", "p3", "p4")) {
            all.add(participant(role, label, LeaseOptions.ofTtl(Duration.ofSeconds(3))));
        }
        List<Long> epochs = new ArrayList<>();
        try (OverlapWatch watch = new OverlapWatch(all)) {
            for (int term = 0; term < 4; term++) {
                ElectionParticipant leader =
                        ElectionParticipant.awaitLeader(all, Timing.scaled(Duration.ofSeconds(10)));
                long epoch = leader.election().epoch().orElseThrow();
                assertThat(leader.election().currentLeader())
                        .as("the database names the leader's term")
                        .get()
                        .satisfies(l -> assertThat(l.epoch()).isEqualTo(epoch));
                epochs.add(epoch);
                sleep(1200); // a renewal of the term (every 1 s) while the others wait
                leader.election().stop();
                all.remove(leader);
            }
            System.out.printf(
                    "%s: terms with epochs %s, %d samples, %d with two leaders%n",
                    getClass().getSimpleName(),
                    epochs,
                    watch.samples(),
                    watch.overlaps().size());
            assertThat(watch.overlaps())
                    .as("samples in which two participants held valid terms")
                    .isEmpty();
        }
        assertThat(epochs)
                .as("epochs strictly grow across terms")
                .isSorted()
                .doesNotHaveDuplicates()
                .hasSize(4);
    }

    @Test
    void gracefulStop_successorWithinASecond_wokenByTheReleaseNotByExpiry() {
        String role = role();
        List<ElectionParticipant> all = new ArrayList<>();
        for (String label : List.of("g1", "g2", "g3")) {
            all.add(participant(role, label, LONG));
        }
        List<Long> handOvers = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            ElectionParticipant leader = ElectionParticipant.awaitLeader(all, Timing.scaled(Duration.ofSeconds(10)));
            sleep(500); // the followers now wait for a 30 s lease: only its release lets them in early
            long stopped = System.nanoTime();
            leader.election().stop();
            all.remove(leader);
            ElectionParticipant.awaitLeader(all, Timing.scaled(Duration.ofSeconds(5)));
            handOvers.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped));
            assertThat(leader.events()).last().isEqualTo("revoked stopped");
        }
        System.out.printf(
                "%s: graceful hand-overs with a 30 s TTL: %s ms (stop() included)%n",
                getClass().getSimpleName(), handOvers);
        assertThat(handOvers).allMatch(ms -> ms < Timing.scaledMillis(1000));
    }

    @Test
    void renewalsBlocked_revokedAtTheLocalDeadline_thenElectedAgain() throws Exception {
        String role = role();
        ElectionParticipant solo = participant(role, "solo", SHORT);
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(solo.election()::isLeader);
        long first = solo.election().epoch().orElseThrow();
        long revokedAfter;
        try (Connection blocker = dataSource().getConnection()) {
            blocker.setAutoCommit(false); // an open transaction holds the role's row: renewals time out
            execute(blocker, "SELECT 1 FROM " + table() + " WHERE job_key = '" + role + "' FOR UPDATE");
            long locked = System.nanoTime();
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> !solo.election().isLeader());
            revokedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - locked);
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> solo.events().size() >= 2);
            blocker.rollback();
        }
        await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(solo.election()::isLeader);
        long second = solo.election().epoch().orElseThrow();
        System.out.printf(
                "%s: renewals blocked: revoked %d ms after the row was locked (TTL 900 ms); elected again "
                        + "with epoch %d (was %d)%n",
                getClass().getSimpleName(), revokedAfter, second, first);
        assertThat(revokedAfter).isLessThan(Timing.scaledMillis(1500));
        assertThat(solo.events().get(1))
                .isEqualTo(
                        "revoked database lease lost: no successful renewal before the " + "local validity deadline");
        assertThat(second).isGreaterThan(first);
    }

    @Test
    void epochSupersededFromOutside_revoked_thenANewTerm() throws Exception {
        String role = role();
        ElectionParticipant solo = participant(role, "solo", LeaseOptions.ofTtl(Duration.ofMillis(1500)));
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(solo.election()::isLeader);
        long first = solo.election().epoch().orElseThrow();
        supersede(role, Duration.ofMillis(200));
        await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> solo.events().size() >= 3);
        long second = solo.election().epoch().orElseThrow();
        assertThat(solo.events())
                .containsExactly(
                        "elected " + first,
                        "revoked database lease lost: the store refused "
                                + "the renewal: it no longer holds this owner's lease",
                        "elected " + second);
        assertThat(second).as("above the outsider's epoch").isGreaterThan(first + 1);
    }

    @Test
    void sameLabelInTwoInstances_neverTakeEachOthersLease() {
        String role = role();
        LeaseOptions ttl = LeaseOptions.ofTtl(Duration.ofSeconds(2));
        ElectionParticipant a = participant(role, "same", ttl);
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(a.election()::isLeader);
        ElectionParticipant b = participant(role, "same", ttl);
        assertThat(a.election().owner())
                .startsWith("same#")
                .isNotEqualTo(b.election().owner());
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4); // unscaled: two TTLs of renewals and attempts
        while (System.nanoTime() < until) {
            assertThat(b.election().isLeader()).isFalse();
            sleep(20);
        }
        long epoch = a.election().epoch().orElseThrow();
        assertThat(a.election().currentLeader())
                .get()
                .satisfies(l -> assertThat(l.epoch()).isEqualTo(epoch));
        assertThat(a.events()).as("one term, no ping-pong").containsExactly("elected " + epoch);
        assertThat(b.events()).isEmpty();
    }

    @Test
    void fence_theLeadersPasses_aDeposedLeadersFails() throws Exception {
        String role = role();
        LeaseOptions rareRenewals = LONG.withRenewEvery(Duration.ofSeconds(25)); // no renewal during this test
        ElectionParticipant a = participant(role, "a", rareRenewals);
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(a.election()::isLeader);
        ElectionParticipant b = participant(role, "b", rareRenewals);
        assertThat(fencedCommit(a))
                .as("the leader's fenced transaction commits")
                .isTrue();
        assertThatThrownBy(() -> fencedCommit(b))
                .as("a follower")
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("does not lead");

        supersede(role, Duration.ofMillis(300)); // a still believes it leads: only the database can tell
        assertThat(a.election().isLeader()).isTrue();
        assertThatThrownBy(() -> fencedCommit(a))
                .as("a deposed leader that has not noticed")
                .isInstanceOf(TenureException.class)
                .hasMessageContaining("Stale owner");

        a.election().stop();
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(b.election()::isLeader);
        assertThat(fencedCommit(b))
                .as("the successor's fenced transaction commits")
                .isTrue();
        assertThatThrownBy(() -> fencedCommit(a)).as("a leader that resigned").isInstanceOf(LeaseLostException.class);
    }

    @Test
    void stopWhileCampaigning_aLateWinIsGivenBackAtOnce() throws Exception {
        String role = role();
        try (Tenure outsider = tenure().build();
                Connection blocker = dataSource().getConnection()) {
            LeaseOptions brief = LeaseOptions.ofTtl(Duration.ofMillis(300))
                    .withRenewal(false)
                    .withFencingToken(true);
            Lease old = outsider.databaseLeases().tryAcquire(role, brief).orElseThrow();
            blocker.setAutoCommit(false);
            outsider.fence(blocker, old); // the old holder's fenced transaction outlives its lease
            sleep(400);
            ElectionParticipant late = participant(role, "late", LONG);
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> claimsWaitingForALock() > 0); // its claim now waits for the blocker's row lock
            java.util.concurrent.FutureTask<Long> stopMillis = new java.util.concurrent.FutureTask<>(() -> {
                long stopping = System.nanoTime();
                late.election().stop();
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopping);
            });
            new Thread(stopMillis, "election-stop").start(); // a thread of its own, not the common pool's
            sleep(200);
            blocker.commit(); // the claim wins, after stop() began
            long givenBack = System.nanoTime();
            stopMillis.get(Timing.scaledMillis(15_000), TimeUnit.MILLISECONDS);
            AtomicReference<Lease> next = new AtomicReference<>(); // free again long before the 30 s TTL
            await().atMost(Timing.scaled(Duration.ofSeconds(3)))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> outsider.databaseLeases()
                            .tryAcquire(role, brief)
                            .map(l -> next.compareAndSet(null, l))
                            .orElse(false));
            System.out.printf(
                    "%s: stop() during a blocked claim took %d ms; the late win was given back within %d ms "
                            + "of the blocker's commit (TTL 30 s)%n",
                    getClass().getSimpleName(),
                    stopMillis.get(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - givenBack));
            assertThat(next.get().fencingToken().orElseThrow())
                    .as("a claim won after stop() began")
                    .isGreaterThan(old.fencingToken().orElseThrow() + 1);
            next.get().release();
            assertThat(late.events()).as("a late win is no term").isEmpty();
            assertThat(late.election().isLeader()).isFalse();
        }
    }

    @Test
    void throwingCallbacks_doNotBreakIt_andACallbackMayStopItsElection() throws Exception {
        String role = role();
        ElectionParticipant thrower = participant(
                role,
                "thrower",
                LeaseOptions.ofTtl(Duration.ofMillis(1500)),
                Ticker.system(),
                ElectionParticipant.Reaction.THROW);
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(thrower.election()::isLeader);
        long first = thrower.election().epoch().orElseThrow();
        supersede(role, Duration.ofMillis(200)); // revoked (throws), then elected again (throws)
        await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> thrower.events().size() >= 3);
        assertThat(thrower.election().epoch())
                .as("elected again after two callbacks threw")
                .isPresent();
        assertThat(thrower.election().epoch().orElseThrow()).isGreaterThan(first);

        ElectionParticipant quitter =
                participant(role, "quitter", LONG, Ticker.system(), ElectionParticipant.Reaction.STOP_WHEN_ELECTED);
        thrower.election().stop();
        await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> quitter.events().size() >= 2);
        assertThat(quitter.events()).hasSize(2).last().isEqualTo("revoked stopped");
        await().atMost(Timing.scaled(Duration.ofSeconds(2)))
                .until(() -> quitter.election().currentLeader().isEmpty());
    }

    @Test
    void tickersHoursApart_agreeOnTheLeader() {
        String role = role();
        long hours = Duration.ofHours(5).toNanos();
        LeaseOptions ttl = LeaseOptions.ofTtl(Duration.ofSeconds(2));
        ElectionParticipant ahead =
                participant(role, "ahead", ttl, () -> System.nanoTime() + hours, ElectionParticipant.Reaction.NONE);
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(ahead.election()::isLeader);
        ElectionParticipant behind =
                participant(role, "behind", ttl, () -> System.nanoTime() - hours, ElectionParticipant.Reaction.NONE);
        sleep(2500); // more than the TTL: several renewals with both clocks running
        assertThat(ahead.election().isLeader()).isTrue();
        assertThat(behind.election().isLeader()).isFalse();
        long first = ahead.election().epoch().orElseThrow();
        assertThat(behind.election().currentLeader())
                .get()
                .satisfies(l -> assertThat(l.epoch()).isEqualTo(first));
        ahead.election().stop();
        await().atMost(Timing.scaled(Duration.ofSeconds(3))).until(behind.election()::isLeader);
        long second = behind.election().epoch().orElseThrow();
        assertThat(ahead.election().currentLeader())
                .get()
                .satisfies(l -> assertThat(l.epoch()).isEqualTo(second));
        assertThat(ahead.events()).containsExactly("elected " + first, "revoked stopped");
        assertThat(behind.events()).containsExactly("elected " + second);
        assertThat(second).isGreaterThan(first);
    }

    /** A fenced transaction of {@code p}'s term that writes nothing: true if it committed. */
    private boolean fencedCommit(ElectionParticipant p) throws SQLException {
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                p.election().fence(c);
                c.commit();
                return true;
            } catch (RuntimeException | SQLException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** An outsider takes the role over in the database: a new epoch and owner, live for {@code lease}. */
    protected void supersede(String role, Duration lease) throws SQLException {
        try (Connection c = dataSource().getConnection()) {
            execute(
                    c,
                    "UPDATE " + table() + " SET fencing_token = fencing_token + 1, owner = 'intruder', "
                            + "lease_expires_at = clock_timestamp() + interval '" + lease.toMillis() + " milliseconds' "
                            + "WHERE job_key = '" + role + "'");
        }
    }

    private long claimsWaitingForALock() throws SQLException {
        try (Connection c = dataSource().getConnection();
                var s = c.createStatement();
                var rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                        + "AND wait_event_type = 'Lock'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String table() {
        return "\"" + schema() + "\".job_execution";
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (var s = c.createStatement()) {
            s.execute(sql);
        }
    }

    protected static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Samples the participants every few ms; a sample with two leaders counts if a second look confirms it. */
    private static final class OverlapWatch implements AutoCloseable {
        private final List<ElectionParticipant> all;
        private final List<String> overlaps = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final AtomicReference<Boolean> running = new AtomicReference<>(true);
        private final Thread thread;
        private volatile long samples;

        OverlapWatch(List<ElectionParticipant> participants) {
            this.all = List.copyOf(participants);
            this.thread = new Thread(this::loop, "overlap-watch");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            while (running.get()) {
                List<ElectionParticipant> leaders =
                        all.stream().filter(p -> p.election().isLeader()).toList();
                if (leaders.size() > 1 && stillLeaders(leaders)) {
                    overlaps.add(leaders.stream()
                            .map(p -> p.election().toString())
                            .toList()
                            .toString());
                }
                samples++;
                sleep(2);
            }
        }

        /** The second look, in reverse order: a hand-over between two reads cannot show both as leaders twice. */
        private static boolean stillLeaders(List<ElectionParticipant> leaders) {
            for (int i = leaders.size() - 1; i >= 0; i--) {
                if (!leaders.get(i).election().isLeader()) {
                    return false;
                }
            }
            return true;
        }

        long samples() {
            return samples;
        }

        List<String> overlaps() {
            return overlaps;
        }

        @Override
        public void close() {
            running.set(false);
            try {
                thread.join(Timing.scaledMillis(1000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
