package dev.tenure.db;

import dev.tenure.LeaderElection.Leader;
import dev.tenure.LeaderElection;
import dev.tenure.testkit.Timing;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class DatabaseLeaderElectionIT {

    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(DatabaseLeaderElectionIT.class);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    /** Records callbacks as "id elected n" / "id revoked reason". */
    private static final class Recorder implements LeaderElection.Listener {
        final String id;
        final List<String> events;

        Recorder(String id, List<String> events) {
            this.id = id;
            this.events = events;
        }

        @Override
        public void elected(long epoch) {
            events.add(id + " elected " + epoch);
        }

        @Override
        public void revoked(String reason) {
            events.add(id + " revoked " + reason);
        }
    }

    private static DatabaseLeaderElection election(String role, String id, Duration ttl, List<String> events,
                                                   ReleaseNotifications shared) {
        DatabaseLeaderElection.Builder b = DatabaseLeaderElection.builder(fx.pool, role).participantId(id).ttl(ttl)
                .listener(new Recorder(id, events));
        if (shared != null) {
            b.notifications(shared);
        }
        return b.build();
    }

    private static String role() {
        return "role-" + UUID.randomUUID();
    }

    @Test
    void threeParticipants_oneLeader_gracefulStopHandsOverWithinASecond() {
        String role = role();
        List<String> events = new CopyOnWriteArrayList<>();
        List<DatabaseLeaderElection> all = new ArrayList<>();
        try (ReleaseNotifications shared = ReleaseNotifications.start(fx.pool)) {
            for (String id : List.of("p1", "p2", "p3")) {
                all.add(election(role, id, Duration.ofSeconds(10), events, shared));
            }
            all.forEach(DatabaseLeaderElection::start);
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> leaders(all) == 1);
            List<Long> handOverMillis = new ArrayList<>();
            long lastEpoch = 0;
            for (int round = 0; round < 2; round++) {
                DatabaseLeaderElection leader = all.stream().filter(DatabaseLeaderElection::isLeader).findFirst().orElseThrow();
                long epoch = leader.term().orElseThrow();
                assertThat(epoch).isGreaterThan(lastEpoch);
                lastEpoch = epoch;
                assertThat(leader.currentLeader()).get().satisfies(l -> {
                    assertThat(l.owner()).isEqualTo(leader.ownerId()).startsWith(leader.participantId() + "#");
                    assertThat(l.epoch()).isEqualTo(epoch);
                });
                sleep(500); // followers now wait for the 10 s lease: only the release notification wakes them early
                long stopped = System.nanoTime();
                leader.stop();
                all.remove(leader);
                Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(3))).pollInterval(Duration.ofMillis(5))
                        .until(() -> leaders(all) == 1);
                handOverMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped));
                assertThat(leader.isLeader()).isFalse();
            }
            System.out.printf("graceful hand-overs (10 s lease, woken by NOTIFY): %s ms (stop() included)%n", handOverMillis);
            assertThat(handOverMillis).allMatch(ms -> ms < 1000);
        } finally {
            all.forEach(DatabaseLeaderElection::stop);
        }
        assertThat(events.stream().filter(e -> e.contains(" elected ")).count()).isEqualTo(3);
    }

    @Test
    void epochSupersededInTheDatabase_revokes_thenReCampaignsWithANewTerm() throws Exception {
        String role = role();
        List<String> events = new CopyOnWriteArrayList<>();
        try (DatabaseLeaderElection e = election(role, "solo", Duration.ofMillis(900), events, null)) {
            e.start();
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(e::isLeader);
            long first = e.term().orElseThrow();
            fx.execute("UPDATE tenure.job_execution SET fencing_token = fencing_token + 1, owner = 'intruder', "
                    + "lease_expires_at = clock_timestamp() + interval '200 milliseconds' WHERE job_key = '" + role + "'");
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> events.stream().anyMatch(x -> x.contains("revoked")));
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(e::isLeader);
            long second = e.term().orElseThrow();
            assertThat(second).isGreaterThan(first + 1);
            assertThat(events.get(0)).isEqualTo("solo elected " + first);
            assertThat(events.get(1)).startsWith("solo revoked the lease of epoch " + first + " was superseded");
            assertThat(events.get(2)).isEqualTo("solo elected " + second);
        }
    }

    @Test
    void renewalsBlockedLongerThanTheTtl_revokedByTheLocalDeadline_reElectedAfterwards() throws Exception {
        String role = role();
        List<String> events = new CopyOnWriteArrayList<>();
        try (DatabaseLeaderElection e = election(role, "solo", Duration.ofMillis(900), events, null)) {
            e.start();
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(e::isLeader);
            long first = e.term().orElseThrow();
            long revokedAfter;
            try (Connection blocker = fx.connect()) {   // an open transaction holds the row: renewals time out
                blocker.setAutoCommit(false);
                try (Statement s = blocker.createStatement()) {
                    s.execute("SELECT 1 FROM tenure.job_execution WHERE job_key = '" + role + "' FOR UPDATE");
                }
                long locked = System.nanoTime();
                Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).pollInterval(Duration.ofMillis(5))
                        .until(() -> !e.isLeader());
                revokedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - locked);
                Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> events.size() >= 2);
                blocker.rollback();
            }
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(e::isLeader);
            System.out.printf("renewals blocked: leadership revoked %d ms after the row was locked (ttl 900 ms); "
                    + "re-elected with epoch %d%n", revokedAfter, e.term().orElseThrow());
            assertThat(revokedAfter).isLessThan(1500);
            assertThat(e.term().orElseThrow()).isGreaterThan(first);
        }
        assertThat(events.get(1)).isEqualTo("solo revoked no successful renewal before the local validity deadline");
    }

    @Test
    void withoutNotifications_followersPollWithinMaxBackoff() {
        String role = role();
        List<String> events = new CopyOnWriteArrayList<>();
        try (DatabaseLeaderElection a = DatabaseLeaderElection.builder(fx.pool, role).participantId("a").listen(false)
                .ttl(Duration.ofSeconds(10)).maxBackoff(Duration.ofMillis(300)).listener(new Recorder("a", events)).build();
             DatabaseLeaderElection b = DatabaseLeaderElection.builder(fx.pool, role).participantId("b").listen(false)
                     .ttl(Duration.ofSeconds(10)).maxBackoff(Duration.ofMillis(300)).listener(new Recorder("b", events)).build()) {
            a.start();
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(a::isLeader);
            b.start();
            sleep(400);
            assertThat(b.isLeader()).isFalse();
            long stopped = System.nanoTime();
            a.stop();
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(3))).pollInterval(Duration.ofMillis(5)).until(b::isLeader);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped)).isLessThan(1000);
        }
    }

    @Test
    void stopWhileAClaimIsInFlight_aLateWinIsGivenBack_noCallback() throws Exception {
        String role = role();
        long n = ((ClaimResult.Claimed) fx.ledger.claim(role, "old", Duration.ofMillis(300))).epoch();
        List<String> events = new CopyOnWriteArrayList<>();
        DatabaseLeaderElection e = election(role, "late", Duration.ofSeconds(5), events, null);
        try (Connection blocker = fx.connect()) {       // the old holder's fenced transaction outlives its lease
            blocker.setAutoCommit(false);
            fx.ledger.fence(blocker, role, n, "old");
            sleep(400);
            e.start();                                  // its claim now waits for the blocker's row lock
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).pollInterval(Duration.ofMillis(10))
                    .until(() -> !fx.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                            + "AND wait_event_type = 'Lock'").isEmpty());
            Thread stopper = new Thread(e::stop);
            stopper.start();
            sleep(200);
            blocker.commit();                           // the claim wins, after stop() began
            stopper.join(15_000);
        }
        assertThat(fx.ledger.holder(role)).as("the late win was released").isEmpty();
        assertThat(Long.parseLong(fx.query("SELECT fencing_token FROM tenure.job_execution WHERE job_key = '" + role + "'")
                .get(0))).as("one claim won after stop began").isGreaterThan(n);
        assertThat(events).isEmpty();
        assertThat(e.isLeader()).isFalse();
    }

    @Test
    void twoProcessesConfiguredWithTheSameParticipantId_neverTakeEachOthersLease() throws Exception {
        String role = role();
        List<String> events = new CopyOnWriteArrayList<>();
        try (DatabaseLeaderElection a = election(role, "same", Duration.ofSeconds(10), events, null);
             DatabaseLeaderElection b = election(role, "same", Duration.ofSeconds(10), events, null)) {
            assertThat(a.ownerId()).isNotEqualTo(b.ownerId());
            a.start();
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(a::isLeader);
            b.start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < until) {
                assertThat(leaders(List.of(a, b))).isLessThanOrEqualTo(1);
                sleep(20);
            }
            assertThat(a.isLeader()).as("the first leader kept its lease").isTrue();
            assertThat(a.currentLeader()).get().extracting(Leader::owner).isEqualTo(a.ownerId());
            assertThat(events).as("one election, no ping-pong").containsExactly("same elected " + a.term().orElseThrow());
        }
    }

    private static long leaders(List<DatabaseLeaderElection> all) {
        return all.stream().filter(DatabaseLeaderElection::isLeader).count();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
