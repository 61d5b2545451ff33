package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.JobCoordinator;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Issue 4, acceptance 2 and 3: the holder killed, or frozen past its TTL, mid-run. */
class CoordinatorFaultsIT {

    private static final long TTL_MS = 2000;
    private static final long RENEW_MS = TTL_MS / 3;

    private static CoordinatorServers servers;
    private static ValkeyServer valkey;
    private static PostgresDatabase db;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(CoordinatorFaultsIT.class);
        valkey = servers.valkey;
        db = servers.db;
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    private List<JvmProcess> nodes(String job, int seconds, long workMs) {
        List<JvmProcess> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            nodes.add(JvmProcess.start(
                    LoopWorker.class,
                    JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK.name(),
                    valkey.address(),
                    db.jdbcUrl(),
                    db.username(),
                    servers.passwordArg(),
                    job,
                    Integer.toString(seconds),
                    Long.toString(workMs),
                    Long.toString(TTL_MS)));
        }
        return nodes;
    }

    /** The node whose last START line has no OUTCOME after it, and that START line. */
    private static Optional<String[]> runningNow(List<JvmProcess> nodes, int[] index) {
        for (int i = 0; i < nodes.size(); i++) {
            List<String> lines = nodes.get(i).stdoutLines();
            for (int j = lines.size() - 1; j >= 0; j--) {
                if (lines.get(j).startsWith("OUTCOME ")) {
                    break;
                }
                if (lines.get(j).startsWith("START ")) {
                    index[0] = i;
                    return Optional.of(lines.get(j).split(" "));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Waits until some live node is inside a run that started less than {@code withinMs} ago (well before its
     * 1.5 s of work ends); returns its START line and sets {@code holder[0]}.
     */
    private static String[] awaitInsideRun(List<JvmProcess> nodes, int[] holder, long withinMs)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + Timing.scaledMillis(15_000);
        while (System.currentTimeMillis() < deadline) {
            Optional<String[]> start =
                    runningNow(nodes, holder).filter(p -> System.currentTimeMillis() - Long.parseLong(p[3]) < withinMs);
            if (start.isPresent()) {
                return start.get();
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no node was running the job within 15 s");
    }

    private static Optional<String[]> firstStartAfter(List<JvmProcess> nodes, int except, long after) {
        String[] best = null;
        for (int i = 0; i < nodes.size(); i++) {
            if (i == except) {
                continue;
            }
            for (String l : nodes.get(i).stdoutLines()) {
                if (l.startsWith("START ")) {
                    String[] p = l.split(" ");
                    if (Long.parseLong(p[3]) > after
                            && (best == null || Long.parseLong(p[3]) < Long.parseLong(best[3]))) {
                        best = p;
                    }
                }
            }
        }
        return Optional.ofNullable(best);
    }

    @Test
    void holderKilledMidRun_anotherNodeRunsTheJobWithinTtlPlusOneRenewal() throws Exception {
        List<JvmProcess> nodes = nodes("killed-job", 24, 1500);
        try {
            int[] holder = {-1};
            Thread.sleep(6000);
            String[] start = awaitInsideRun(nodes, holder, 500);
            nodes.get(holder[0]).kill();
            long killedAt = System.currentTimeMillis();
            String[] next = null;
            while (next == null && System.currentTimeMillis() < killedAt + Timing.scaledMillis(15_000)) {
                next = firstStartAfter(nodes, holder[0], killedAt).orElse(null);
                Thread.sleep(20);
            }
            assertThat(next).as("another node took over").isNotNull();
            long takeover = Long.parseLong(next[3]) - killedAt;
            System.out.printf(
                    "holder killed %d ms into its run (epoch %s); another node started the job %d ms later (TTL %d + renewal %d = %d ms), epoch %s%n",
                    killedAt - Long.parseLong(start[3]),
                    start[2],
                    takeover,
                    TTL_MS,
                    RENEW_MS,
                    TTL_MS + RENEW_MS,
                    next[2]);
            assertThat(takeover).isLessThanOrEqualTo(TTL_MS + RENEW_MS + Timing.scaledMillis(1000));
            assertThat(Long.parseLong(next[2])).isGreaterThan(Long.parseLong(start[2]));
            for (int i = 0; i < 3; i++) {
                if (i != holder[0]) {
                    nodes.get(i).awaitStdoutLine("DONE"::equals, Timing.scaled(Duration.ofSeconds(60)));
                }
            }
        } finally {
            nodes.forEach(JvmProcess::close);
        }
        assertThat(servers.count(
                        "SELECT count(*) FROM business_ledger b JOIN tenure.job_run r ON r.fire_key = b.fire_key "
                                + "WHERE r.job_key = 'killed-job' AND r.status <> 'COMPLETED'"))
                .as("business rows of runs not completed")
                .isZero();
    }

    @Test
    void holderFrozenPastTtl_learnsLeaseLost_andItsFencedWriteIsRejected() throws Exception {
        List<JvmProcess> nodes = nodes("frozen-job", 24, 1500);
        int[] holder = {-1};
        String[] start;
        int executed = 0;
        try {
            Thread.sleep(6000);
            start = awaitInsideRun(nodes, holder, 500);
            JvmProcess frozen = nodes.get(holder[0]);
            frozen.pause();
            Thread.sleep(TTL_MS + 2000);
            frozen.resume();
            String fire = start[1];
            String outcome =
                    frozen.awaitStdoutLine(l -> l.startsWith("OUTCOME " + fire), Timing.scaled(Duration.ofSeconds(20)));
            System.out.println("frozen holder's outcome: " + outcome);
            assertThat(outcome).contains("LEASE_LOST");
            for (JvmProcess n : nodes) {
                n.awaitStdoutLine("DONE"::equals, Timing.scaled(Duration.ofSeconds(60)));
            }
            assertThat(servers.count("SELECT count(*) FROM business_ledger WHERE fire_key = '" + fire + "'"))
                    .as("the frozen holder's business row")
                    .isZero();
            assertThat(servers.count("SELECT count(*) FROM tenure.job_runs WHERE fire_key = '" + fire
                            + "' AND status = 'COMPLETED'"))
                    .isZero();
        } finally {
            for (JvmProcess n : nodes) {
                executed += (int) n.stdoutLines().stream()
                        .filter(l -> l.startsWith("OUTCOME ") && l.contains(" EXECUTED "))
                        .count();
            }
            nodes.forEach(JvmProcess::close);
        }
        assertThat(
                        servers.count(
                                "SELECT count(*) FROM business_ledger b JOIN tenure.job_run r ON r.fire_key = b.fire_key WHERE r.job_key = 'frozen-job'"))
                .as("one business row per executed run")
                .isEqualTo(executed);
        assertThat(servers.count(
                        "SELECT count(*) FROM tenure.job_runs WHERE job_key = 'frozen-job' AND status = 'COMPLETED'"))
                .isEqualTo(executed);
    }

    @Test
    void valkeyLeaseKeyDeletedDuringARun_noOtherNodeStartsBeforeTheDatabaseLeaseEnds() throws Exception {
        List<JvmProcess> nodes = nodes("deleted-key-job", 22, 1500);
        try {
            int[] holder = {-1};
            Thread.sleep(6000);
            String[] start = awaitInsideRun(nodes, holder, 500);
            // as a failover without replication would: the Valkey lease vanishes while the run is live
            assertThat(valkey.command("DEL", "{tenure:deleted-key-job}:lease")).isEqualTo(1L);
            long deletedAt = System.currentTimeMillis();
            String fire = start[1];
            String outcome = nodes.get(holder[0])
                    .awaitStdoutLine(l -> l.startsWith("OUTCOME " + fire), Timing.scaled(Duration.ofSeconds(20)));
            long workEnded = Long.parseLong(start[3]) + 1500;
            String[] next = null;
            while (next == null && System.currentTimeMillis() < deletedAt + Timing.scaledMillis(15_000)) {
                next = firstStartAfter(nodes, holder[0], deletedAt).orElse(null);
                Thread.sleep(20);
            }
            if (next == null) {
                for (int i = 0; i < nodes.size(); i++) {
                    List<String> lines = nodes.get(i).stdoutLines();
                    System.out.println("node " + i + (i == holder[0] ? " (holder)" : "") + ": "
                            + lines.subList(Math.max(0, lines.size() - 12), lines.size()));
                }
            }
            assertThat(next).as("another node ran the job afterwards").isNotNull();
            System.out.printf(
                    "Valkey key deleted %d ms into the run; the holder finished (%s); the next node started %d ms after the deletion, %d ms after the holder's work ended%n",
                    deletedAt - Long.parseLong(start[3]),
                    outcome.split(" ")[2],
                    Long.parseLong(next[3]) - deletedAt,
                    Long.parseLong(next[3]) - workEnded);
            assertThat(outcome).contains(" EXECUTED ");
            assertThat(Long.parseLong(next[3]))
                    .as("next start vs the end of the holder's work")
                    .isGreaterThanOrEqualTo(workEnded);
            for (int i = 0; i < 3; i++) {
                nodes.get(i).awaitStdoutLine("DONE"::equals, Timing.scaled(Duration.ofSeconds(60)));
            }
        } finally {
            nodes.forEach(JvmProcess::close);
        }
    }
}
