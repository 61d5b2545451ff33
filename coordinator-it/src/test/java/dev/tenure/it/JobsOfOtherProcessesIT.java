package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Jobs that only a process which does not sweep registers are swept too (issue "every fire accounted for", item 3).
 * Separate JVMs ({@link ScheduleNode}) share one schema: the process that leads the sweeper election of an application
 * sweeps every schedule of that application in the ledger, and the catch-ups of a job it does not have are run by a
 * process that has it. Before schedules were data, the elected sweeper accounted only for its own process's jobs: the
 * other process's job got no MISSED record and no run, and its {@code swept_at} stayed NULL.
 */
class JobsOfOtherProcessesIT {

    private static final Duration RATE = Duration.ofSeconds(1);
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final int MAX_CATCH_UPS = 3;
    private static final Duration BACKLOG = Duration.ofSeconds(12);
    private static final Duration SKIP_BACKLOG = Duration.ofSeconds(6);

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(JobsOfOtherProcessesIT.class);
        servers.execute("CREATE TABLE fire_effect (job text NOT NULL, fire_key text NOT NULL, node text NOT NULL, "
                + "via text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())");
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /**
     * A leads the sweeper election and registers job {@code a}; B, started later, registers {@code b} (catch-up, the
     * newest 3) and {@code b-skip} (skip), whose schedules stood 12 s and 6 s back, and never leads. A sweeps both of
     * B's jobs: the older fires of {@code b} are recorded MISSED, the newest and every later one is caught up by B
     * (COMPLETED, its business row written once); every fire of {@code b-skip} is MISSED with no run.
     */
    @Test
    void jobsOnlyAFollowerRegisters_areSweptByTheLeader_caughtUpByTheFollowerOrRecordedMissed() throws Exception {
        Instant backlogFrom;
        Instant skipFrom;
        Instant end;
        try (JvmProcess a = node("A", "default", job("a", "catch-up"))) {
            a.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(30)));
            String term = awaitLeader("tenure-sweeper");
            Awaitility.await("A's line: it sweeps")
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> a.stderrLines().stream().anyMatch(l -> l.contains("sweeps the fires of")));
            backlogFrom = backlog("b", "default", "CATCH_UP", BACKLOG);
            skipFrom = backlog("b-skip", "default", "SKIP", SKIP_BACKLOG);
            try (JvmProcess b = node("B", "default", job("b", "catch-up"), job("b-skip", "skip"))) {
                b.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(30)));
                end = dbNow().plus(Duration.ofSeconds(4));
                awaitSwept(end, "a", "b", "b-skip");
                assertThat(liveLeader("tenure-sweeper"))
                        .as("A led all along, B never")
                        .isEqualTo(term);
                assertThat(b.stderrLines()).as("B never led").noneMatch(l -> l.contains("sweeps the fires of"));
            }
        }
        assertSweptBy("b", "A");
        assertSweptBy("b-skip", "A");
        assertSweptBy("a", "A");

        FireBook b = FireBook.read(servers, "b");
        System.out.println(b);
        List<Instant> fires = slots(backlogFrom, end);
        assertEveryFireOnceOrMissed(b, fires, "B/catch-up");
        // the first sweep found at least 11 fires overdue: it recorded all but the newest 3 MISSED
        int old = (int) BACKLOG.toSeconds() - 1 - MAX_CATCH_UPS;
        for (Instant f : fires.subList(0, Math.min(old, fires.size()))) {
            assertThat(b.statusOf(f))
                    .as("%s, an old fire of the backlog: %s", f, b)
                    .isIn("MISSED", "SUMMARISED");
            assertThat(b.error.getOrDefault(f, "not caught up")).contains("not caught up");
        }
        assertThat(b.withStatus("COMPLETED"))
                .as("fires of b caught up by B: %s", b)
                .hasSizeGreaterThanOrEqualTo(MAX_CATCH_UPS);
        // nobody runs b's schedule: every fire after the backlog is overdue, and B catches it up
        assertThat(b.withStatus("COMPLETED"))
                .as("b's fires of the last seconds, caught up: %s", b)
                .containsAll(fires.subList(fires.size() - 2, fires.size()));

        FireBook skip = FireBook.read(servers, "b-skip");
        System.out.println(skip);
        assertThat(skip.effects).as("b-skip never runs: %s", skip).isEmpty();
        assertThat(skip.otherEffects).isEmpty();
        for (Instant f : slots(skipFrom, end)) {
            assertThat(skip.statusOf(f)).as("%s of b-skip: %s", f, skip).isIn("MISSED", "SUMMARISED");
        }
        assertThat(skip.error.values()).as("b-skip's MISSED rows say why").allMatch(e -> e.contains("policy SKIP"));

        FireBook own = FireBook.read(servers, "a");
        assertThat(own.withStatus("COMPLETED"))
                .as("A's own job, caught up by A: %s", own)
                .isNotEmpty();
        own.effects.forEach((f, e) -> assertThat(e).as("%s of a", f).containsExactly("A/catch-up"));
    }

    /**
     * Two applications share the schema: A ({@code api}) registers {@code api-report}, B ({@code worker})
     * {@code worker-report}, both 8 s behind. Each application elects its own sweeper, and each job is swept by its own
     * application's: older fires MISSED, the newest ones and every later one caught up by the process that has it.
     */
    @Test
    void twoApplicationsInOneSchema_eachElectsItsOwnSweeper_andEveryJobIsSwept() throws Exception {
        Instant apiFrom = backlog("api-report", "api", "CATCH_UP", Duration.ofSeconds(8));
        Instant workerFrom = backlog("worker-report", "worker", "CATCH_UP", Duration.ofSeconds(8));
        Instant end;
        String apiTerm;
        String workerTerm;
        try (JvmProcess a = node("A2", "api", job("api-report", "catch-up"));
                JvmProcess b = node("B2", "worker", job("worker-report", "catch-up"))) {
            a.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(30)));
            b.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(30)));
            end = dbNow().plus(Duration.ofSeconds(4));
            awaitSwept(end, "api-report", "worker-report");
            apiTerm = liveLeader("tenure-sweeper:api");
            workerTerm = liveLeader("tenure-sweeper:worker");
        }
        assertSweptBy("api-report", "A2");
        assertSweptBy("worker-report", "B2");
        assertThat(apiTerm).as("api's sweeper election has a live term").isNotNull();
        assertThat(workerTerm).as("worker's sweeper election has a live term").isNotNull();
        FireBook api = FireBook.read(servers, "api-report");
        System.out.println(api);
        assertEveryFireOnceOrMissed(api, slots(apiFrom, end), "A2/catch-up");
        assertThat(api.withStatus("COMPLETED")).as("%s", api).hasSizeGreaterThanOrEqualTo(MAX_CATCH_UPS);
        FireBook worker = FireBook.read(servers, "worker-report");
        System.out.println(worker);
        assertEveryFireOnceOrMissed(worker, slots(workerFrom, end), "B2/catch-up");
        assertThat(worker.withStatus("COMPLETED")).as("%s", worker).hasSizeGreaterThanOrEqualTo(MAX_CATCH_UPS);
    }

    /**
     * Every fire has a row (or a summary counts it): COMPLETED with exactly one business row, written by
     * {@code runner}; or MISSED with none. No business row of a fire that is not COMPLETED.
     */
    private static void assertEveryFireOnceOrMissed(FireBook book, List<Instant> fires, String runner) {
        assertThat(fires).as("fires expected").isNotEmpty();
        for (Instant f : fires) {
            String s = book.statusOf(f);
            assertThat(s)
                    .as("%s of %s is accounted for: %s", f, book.job, book)
                    .isIn("COMPLETED", "MISSED", "SUMMARISED");
            if (s.equals("COMPLETED")) {
                assertThat(book.effectsOf(f))
                        .as("%s of %s ran once: %s", f, book.job, book)
                        .containsExactly(runner);
            } else {
                assertThat(book.effectsOf(f))
                        .as("%s of %s, MISSED, never ran: %s", f, book.job, book)
                        .isEmpty();
            }
        }
        book.effects.forEach((f, e) -> assertThat(book.status.get(f))
                .as("%s of %s has business rows %s: it completed", f, book.job, e)
                .isEqualTo("COMPLETED"));
        assertThat(book.otherEffects).isEmpty();
        for (FireBook.Summary s : book.summaries) {
            assertThat(slots(s.first().minus(RATE), s.last()))
                    .as("fires counted by %s", s)
                    .hasSize((int) s.fires());
        }
    }

    private static JvmProcess node(String name, String application, String... jobs) {
        List<String> args = new ArrayList<>(List.of(
                name,
                application,
                servers.db.jdbcUrl(),
                servers.db.username(),
                servers.passwordArg(),
                Long.toString(TTL.toMillis()),
                "0"));
        args.addAll(List.of(jobs));
        return JvmProcess.start(List.of(), ScheduleNode.class.getName(), args);
    }

    /** A job spec for {@link ScheduleNode}: every second, 500 ms of grace, the newest 3 caught up, nobody runs it. */
    private static String job(String key, String policy) {
        return key + ":" + RATE.toMillis() + ":" + policy + ":500:" + MAX_CATCH_UPS + ":idle:0";
    }

    /**
     * The job's schedule as a whole fleet's outage left it: registered, with its account {@code behind} back (from a
     * whole second). Returns where it stands.
     */
    private static Instant backlog(String job, String application, String action, Duration behind) throws SQLException {
        servers.execute("INSERT INTO tenure.job_execution (job_key) VALUES ('" + job + "')");
        servers.execute(
                "INSERT INTO tenure.job_schedule (job_key, kind, expression, policy, integration, registered_by, "
                        + "application, policy_action, max_catch_ups, grace_ms, swept_until, seen_at, check_at) VALUES ('"
                        + job
                        + "', 'fixed-rate', 'PT1S', 'policy', 'coordinator', 'gone', '" + application + "', '" + action
                        + "', " + MAX_CATCH_UPS + ", 500, date_trunc('second', clock_timestamp()) - interval '"
                        + behind.toSeconds() + " seconds', clock_timestamp(), clock_timestamp())");
        return Instant.ofEpochMilli(servers.count("SELECT (extract(epoch FROM swept_until) * 1000)::bigint FROM "
                + "tenure.job_schedule WHERE job_key = '" + job + "'"));
    }

    private static Instant dbNow() throws SQLException {
        return Instant.ofEpochMilli(servers.count("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint"));
    }

    /** Waits until every job's account reaches {@code end}; goes on after the timeout, so the checks say what failed. */
    private static void awaitSwept(Instant end, String... jobs) {
        String keys = "'" + String.join("','", jobs) + "'";
        try {
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(30)))
                    .until(() -> servers.count("SELECT count(*) FROM tenure.job_schedule WHERE job_key IN (" + keys
                                    + ") AND swept_until >= '" + end + "'")
                            == jobs.length);
        } catch (ConditionTimeoutException e) {
            System.out.println("not every account reached " + end + ": " + e.getMessage());
        }
    }

    /** The epoch of the live term of election {@code name}, or null. */
    private static String liveLeader(String name) throws SQLException {
        return servers.one("SELECT fencing_token FROM tenure.job_execution WHERE job_key = '" + name
                + "' AND lease_expires_at > clock_timestamp()");
    }

    private static String awaitLeader(String name) {
        String[] term = new String[1];
        Awaitility.await()
                .atMost(Timing.scaled(Duration.ofSeconds(15)))
                .until(() -> (term[0] = liveLeader(name)) != null);
        return term[0];
    }

    private static void assertSweptBy(String job, String node) throws SQLException {
        assertThat(servers.one("SELECT coalesce(swept_by, 'never swept (swept_at ' || coalesce(swept_at::text, "
                        + "'NULL') || ')') FROM tenure.job_schedule WHERE job_key = '" + job + "'"))
                .as("who swept %s", job)
                .isEqualTo(node);
    }

    /** The slots of {@link #RATE} after {@code from} up to {@code to}. */
    private static List<Instant> slots(Instant from, Instant to) {
        List<Instant> out = new ArrayList<>();
        long p = RATE.toMillis();
        for (long t = Math.floorDiv(from.toEpochMilli(), p) * p + p; t <= to.toEpochMilli(); t += p) {
            out.add(Instant.ofEpochMilli(t));
        }
        return out;
    }
}
