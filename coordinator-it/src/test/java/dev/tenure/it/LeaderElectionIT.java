package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 4, acceptance 6, in separate JVMs, for both configurations of the election (database only; Valkey in front of
 * the database): leader killed, leader resigning, and never two overlapping terms.
 */
class LeaderElectionIT {

    private static final long TTL_MS = 2000;
    private static final long RENEW_MS = TTL_MS / 3;
    /**
     * The resigning leaders' TTL: long, so that a successor that came by the lease's expiry instead of its release
     * would come 20 s late, far beyond the (scaled) bound of a hand-over.
     */
    private static final long RESIGN_TTL_MS = 30_000;

    private static CoordinatorServers servers;
    private static ValkeyServer valkey;
    private static PostgresDatabase db;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(LeaderElectionIT.class);
        valkey = servers.valkey;
        db = servers.db;
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /** A term: [start, end) in wall ms on this machine, with its epoch. */
    record Term(long epoch, long start, long end, int node) {}

    /** The two configurations of the election. */
    enum Config {
        DATABASE,
        VALKEY_AND_DATABASE
    }

    private static JvmProcess worker(Config config, String name, int seconds, long resignAfter, long ttlMs) {
        return JvmProcess.start(
                ElectionWorker.class,
                config == Config.DATABASE ? "-" : valkey.address(),
                db.jdbcUrl(),
                db.username(),
                servers.passwordArg(),
                name + "-" + config.name().toLowerCase(),
                Integer.toString(seconds),
                Long.toString(resignAfter),
                Long.toString(ttlMs));
    }

    /** Terms from the workers' output; a term without REVOKED ends at {@code killedAt} (or never). */
    private static List<Term> terms(List<JvmProcess> nodes, int killed, long killedAt) {
        List<Term> terms = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            long epoch = -1;
            long start = 0;
            for (String l : nodes.get(i).stdoutLines()) {
                String[] p = l.split(" ");
                if (p[0].equals("ELECTED")) {
                    epoch = Long.parseLong(p[1]);
                    start = Long.parseLong(p[2]);
                } else if ((p[0].equals("REVOKED") || p[0].equals("RESIGNED")) && epoch >= 0) {
                    terms.add(new Term(epoch, start, Long.parseLong(p[1]), i));
                    epoch = -1;
                }
            }
            if (epoch >= 0) {
                terms.add(new Term(epoch, start, i == killed ? killedAt : Long.MAX_VALUE, i));
            }
        }
        terms.sort(Comparator.comparingLong(Term::epoch));
        return terms;
    }

    private static void assertNoOverlap(List<Term> terms) {
        for (int i = 1; i < terms.size(); i++) {
            Term prev = terms.get(i - 1);
            Term next = terms.get(i);
            assertThat(next.epoch()).as("epochs strictly increase").isGreaterThan(prev.epoch());
            assertThat(next.start())
                    .as("term %s starts after term %s ended", next, prev)
                    .isGreaterThanOrEqualTo(prev.end());
        }
    }

    @ParameterizedTest
    @EnumSource(Config.class)
    void leaderKilled_newLeaderWithinTtlPlusOneRenewal_noOverlappingTerms(Config config) throws Exception {
        List<JvmProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(worker(config, "killed-leader", 14, -1, TTL_MS));
            }
            long deadline = System.currentTimeMillis() + Timing.scaledMillis(20_000);
            int leader = -1;
            while (leader < 0 && System.currentTimeMillis() < deadline) {
                for (int i = 0; i < 3; i++) {
                    if (nodes.get(i).stdoutLines().stream().anyMatch(l -> l.startsWith("ELECTED "))) {
                        leader = i;
                    }
                }
                Thread.sleep(20);
            }
            assertThat(leader).as("a leader was elected").isNotNegative();
            Thread.sleep(1500);
            nodes.get(leader).kill();
            long killedAt = System.currentTimeMillis();
            long next = -1;
            while (next < 0 && System.currentTimeMillis() < killedAt + Timing.scaledMillis(15_000)) {
                for (int i = 0; i < 3; i++) {
                    if (i != leader) {
                        next = nodes.get(i).stdoutLines().stream()
                                .filter(l -> l.startsWith("ELECTED "))
                                .mapToLong(l -> Long.parseLong(l.split(" ")[2]))
                                .filter(t -> t > killedAt)
                                .min()
                                .orElse(next);
                    }
                }
                Thread.sleep(20);
            }
            assertThat(next).as("a new leader").isPositive();
            System.out.printf(
                    config + ": leader killed: new leader after %d ms (TTL %d + renewal %d = %d ms)%n",
                    next - killedAt,
                    TTL_MS,
                    RENEW_MS,
                    TTL_MS + RENEW_MS);
            assertThat(next - killedAt).isLessThanOrEqualTo(TTL_MS + RENEW_MS + Timing.scaledMillis(1000));
            for (int i = 0; i < 3; i++) {
                if (i != leader) {
                    nodes.get(i).awaitStdoutLine("DONE"::equals, Timing.scaled(Duration.ofSeconds(40)));
                }
            }
            assertNoOverlap(terms(nodes, leader, killedAt));
        } finally {
            nodes.forEach(JvmProcess::close);
        }
    }

    @ParameterizedTest
    @EnumSource(Config.class)
    void leaderResigns_successorWithoutWaitingForTheLeaseToExpire_noOverlappingTerms(Config config) throws Exception {
        List<JvmProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(worker(config, "resigning-leader", 20, 1500, RESIGN_TTL_MS));
            }
            for (JvmProcess n : nodes) {
                n.awaitStdoutLine("DONE"::equals, Timing.scaled(Duration.ofSeconds(60)));
            }
            List<Term> terms = terms(nodes, -1, 0);
            assertThat(terms).as("every node led once and resigned").hasSize(3);
            assertNoOverlap(terms);
            for (int i = 1; i < terms.size(); i++) {
                long gap = terms.get(i).start() - terms.get(i - 1).end();
                System.out.printf(
                        config + ": graceful hand-over %d: successor elected %d ms after the resignation%n", i, gap);
                assertThat(gap)
                        .as(
                                "ms from a resignation to the successor's election (the lease's TTL is %d ms)",
                                RESIGN_TTL_MS)
                        .isLessThanOrEqualTo(Timing.scaledMillis(3000));
            }
        } finally {
            nodes.forEach(JvmProcess::close);
        }
    }
}
