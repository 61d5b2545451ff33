package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A schedule change is a new version from the database's instant: the old version's fires are accounted for up to it,
 * the new version's from it, and no fire is invented (issue "every fire accounted for", item 4). Before schedules were
 * data, the sweeper walked the new schedule from where the account stood: a fire of the old version that was due just
 * before the change got no row and no MISSED record, and slots of the new version from before it existed were caught up.
 */
class ScheduleChangeIT {

    private static final Duration V1 = Duration.ofSeconds(3);
    private static final Duration V2 = Duration.ofSeconds(2);
    private static final Duration TTL = Duration.ofSeconds(2);

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(ScheduleChangeIT.class);
        servers.execute("CREATE TABLE fire_effect (job text NOT NULL, fire_key text NOT NULL, node text NOT NULL, "
                + "via text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())");
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /**
     * JVM v1 runs job {@code report} every 3 s (each slot a second late) and is killed with SIGKILL as its slot S
     * begins, before it ran S; S is a slot of v1 only (an odd multiple of 3 s). JVM v2 then registers {@code report}
     * every 2 s, at least 1.2 s after S (past the 2 s slot S + 1 s, which no version scheduled), and runs its slots.
     * Every v1 slot up to the change has a row (S too), every v2 slot from the change on has one, no row is of a time
     * no version scheduled, and no fire ran twice.
     */
    @Test
    void v1EveryThreeSecondsKilledIntoItsSlot_v2EveryTwoSeconds_everyFireOfEachVersionOnce_noneInvented()
            throws Exception {
        Instant first;
        Instant s;
        Instant change;
        Instant end;
        try (JvmProcess v1 = node("v1", 0, "report:" + V1.toMillis() + ":catch-up:1000:10:loop:1000")) {
            v1.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(30)));
            String done = v1.awaitStdoutLine(
                    l -> l.startsWith("OUTCOME report ") && l.endsWith(" loop EXECUTED"),
                    Timing.scaled(Duration.ofSeconds(15)));
            first = Instant.parse(done.split(" ")[2]);
            String due = v1.awaitStdoutLine(
                    l -> l.startsWith("DUE report ") && v1Only(Instant.parse(l.split(" ")[2]), first),
                    Timing.scaled(Duration.ofSeconds(15)));
            v1.kill();
            s = Instant.parse(due.split(" ")[2]);
            long killedAfter = System.currentTimeMillis() - s.toEpochMilli();
            assertThat(v1.stdoutLines())
                    .as("v1 was killed %d ms into slot %s, before it ran it", killedAfter, s)
                    .noneMatch(l -> l.startsWith("BEGIN report " + s + " "));
        }
        try (JvmProcess v2 =
                node("v2", s.toEpochMilli() + 1200, "report:" + V2.toMillis() + ":catch-up:1000:10:loop:0")) {
            v2.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(30)));
            change = micros("SELECT changed_at FROM tenure.job_schedule WHERE job_key = 'report'");
            end = change.plus(Duration.ofSeconds(6));
            Instant fireS = s;
            try {
                Awaitility.await()
                        .atMost(Timing.scaled(Duration.ofSeconds(30)))
                        .until(() -> servers.count("SELECT count(*) FROM tenure.job_schedule WHERE job_key = "
                                                + "'report' AND swept_until >= '" + end + "'")
                                        == 1
                                && servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'report' AND "
                                                + "fire_key = '" + fireS + "' AND status IN ('COMPLETED', 'MISSED')")
                                        == 1);
            } catch (ConditionTimeoutException e) {
                System.out.println("the account of report did not reach " + end + " with S settled: " + e);
            }
            v2.terminate();
            assertThat(v2.waitFor(Timing.scaled(Duration.ofSeconds(20))))
                    .as("v2 stopped")
                    .isPresent();
        }
        FireBook book = FireBook.read(servers, "report");
        System.out.println("slot S " + s + ", change " + change + "; " + book);
        assertThat(book.statusOf(s))
                .as("S (%s), v1's slot it was killed in: %s", s, book)
                .isIn("COMPLETED", "MISSED");
        for (Instant f = first; f.isBefore(change); f = f.plus(V1)) {
            assertOnceOrMissed(book, f, "v1 slot");
        }
        for (Instant f = next(change.minusNanos(1), V2); !f.isAfter(end); f = f.plus(V2)) {
            assertOnceOrMissed(book, f, "v2 slot");
        }
        List<Instant> invented = new ArrayList<>();
        book.status.keySet().stream()
                .filter(f -> !(f.isBefore(change) && slotOf(f, V1)) && !(!f.isBefore(change) && slotOf(f, V2)))
                .forEach(invented::add);
        book.effects.keySet().stream().filter(f -> !book.status.containsKey(f)).forEach(invented::add);
        assertThat(invented)
                .as("fires of times no version scheduled (v1 up to %s, v2 from it): %s", change, book)
                .isEmpty();
        assertThat(book.otherEffects).isEmpty();
        book.effects.forEach(
                (f, e) -> assertThat(e).as("business rows of %s", f).hasSize(1));
        // the ledger keeps both versions, the old one accounted for up to the instant the new one starts
        assertThat(servers.strings("SELECT version || ' ' || expression || ' ' || coalesce((extract(epoch FROM "
                        + "valid_from) * 1000000)::bigint::text, '-') || ' ' || coalesce((extract(epoch FROM "
                        + "valid_until) * 1000000)::bigint::text, '-') FROM tenure.job_schedule_version WHERE "
                        + "job_key = 'report' ORDER BY version"))
                .hasSize(2)
                .last()
                .isEqualTo("2 PT2S " + micros(change) + " -");
        assertThat(servers.one("SELECT (extract(epoch FROM valid_until) * 1000000)::bigint FROM "
                        + "tenure.job_schedule_version WHERE job_key = 'report' AND version = 1"))
                .isEqualTo(Long.toString(micros(change)));
    }

    /**
     * A schedule registered daily, then hourly, while its account stood a day back: the one daily fire of that day is
     * the old version's and is caught up; no hourly fire before the change is run or recorded. Before schedules were data,
     * the sweeper walked the hourly schedule over the whole day (24 fires, of which it caught up 10).
     */
    @Test
    void dailyBecomingHourly_withTheAccountADayBack_noHourlyFireBeforeTheChange() throws Exception {
        try (Tenure daily = tenure("daily")) {
            daily.register(ScheduledJob.of("digest", Schedule.fixedRate(Duration.ofDays(1)), fire -> {
                throw new AssertionError("the daily version's process is gone before any sweep");
            }));
        }
        // registered two days ago; every fire accounted for up to a day ago
        servers.execute("UPDATE tenure.job_schedule SET swept_until = clock_timestamp() - interval '1 day', "
                + "version_from = clock_timestamp() - interval '2 days', check_at = clock_timestamp() "
                + "WHERE job_key = 'digest'");
        servers.execute("UPDATE tenure.job_schedule_version SET valid_from = clock_timestamp() - interval '2 days' "
                + "WHERE job_key = 'digest' AND version = 1");
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        Instant change;
        try (Tenure hourly = tenure("hourly")) {
            hourly.register(ScheduledJob.of("digest", Schedule.fixedRate(Duration.ofHours(1)), fire -> {
                        ran.add(fire);
                        hourly.coordinator()
                                .run(
                                        "digest",
                                        fire,
                                        RunPolicy.waitUpTo(TTL),
                                        ctx -> ctx.completeInTransaction(servers.db.dataSource(), c -> {
                                            try (PreparedStatement ps = c.prepareStatement(
                                                    "INSERT INTO fire_effect (job, fire_key, node, via) VALUES "
                                                            + "('digest', ?, 'hourly', 'catch-up')")) {
                                                ps.setString(1, fire);
                                                return ps.executeUpdate();
                                            }
                                        }));
                    })
                    .withPolicy(MissedFirePolicy.catchUp()
                            .withMaxAge(Duration.ofDays(2))
                            .withGrace(Duration.ofMillis(500))));
            change = micros("SELECT changed_at FROM tenure.job_schedule WHERE job_key = 'digest'");
            Instant at = change;
            try {
                Awaitility.await()
                        .atMost(Timing.scaled(Duration.ofSeconds(20)))
                        .until(() -> servers.count("SELECT count(*) FROM tenure.job_schedule WHERE job_key = "
                                                + "'digest' AND swept_until >= '" + at + "'")
                                        == 1
                                && servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'digest'") > 0);
            } catch (ConditionTimeoutException e) {
                System.out.println("the account of digest did not reach the change at " + at + ": " + e.getMessage());
            }
        }
        FireBook book = FireBook.read(servers, "digest");
        Instant day = Instant.ofEpochMilli(Math.floorDiv(change.toEpochMilli(), 86_400_000L) * 86_400_000L);
        Map<Instant, String> beforeTheChange = new java.util.TreeMap<>(book.status);
        beforeTheChange.keySet().removeIf(f -> !f.isBefore(change));
        assertThat(beforeTheChange)
                .as("fires before the change at %s: the daily one of the day only: %s", change, book)
                .containsOnlyKeys(day);
        assertThat(book.status.get(day)).as("the daily fire %s, caught up", day).isEqualTo("COMPLETED");
        assertThat(ran)
                .as("catch-ups run")
                .filteredOn(f -> Instant.parse(f).isBefore(change))
                .containsExactly(day.toString());
        assertThat(book.summaries).isEmpty();
    }

    /**
     * A rolling deploy changes job {@code rare} from every 2 s to daily 0.3 s after a 2 s slot F, which nobody runs: the
     * old version's process still leads the sweeper. F is not overdue yet at the first sweep of the new version (1.5 s of
     * grace); it must be caught up once its grace has passed. The sweeper once set the job's next check from the new
     * version alone (its first fire, at midnight, plus the grace): F waited until then, and was recorded MISSED then, as
     * older than the policy's max age, instead of being caught up.
     */
    @Test
    void aChangeToADailySchedule_theOldVersionsLastFire_isCaughtUpOnceItsGraceHasPassed() throws Exception {
        MissedFirePolicy policy = MissedFirePolicy.catchUp().withGrace(Duration.ofMillis(1500));
        try (Tenure old = tenure("old")) {
            old.register(ScheduledJob.of("rare", Schedule.fixedRate(V2), fire -> effect(old, "rare", fire, "old"))
                    .withPolicy(policy));
            Instant f = next(Instant.now().plusSeconds(1), V2);
            Thread.sleep(Math.max(0, f.toEpochMilli() + 300 - System.currentTimeMillis()));
            try (Tenure deploy = tenure("new")) {
                deploy.register(ScheduledJob.of(
                                "rare",
                                Schedule.fixedRate(Duration.ofDays(1)),
                                fire -> effect(deploy, "rare", fire, "new"))
                        .withPolicy(policy));
                Instant change = micros("SELECT changed_at FROM tenure.job_schedule WHERE job_key = 'rare'");
                assertThat(change).as("the change comes after F").isAfter(f);
                try {
                    Awaitility.await()
                            .atMost(Timing.scaled(Duration.ofSeconds(8)))
                            .until(() -> servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'rare' "
                                            + "AND fire_key = '" + f + "' AND status IN ('COMPLETED', 'MISSED')")
                                    == 1);
                } catch (ConditionTimeoutException e) {
                    System.out.println("F (" + f + ") was not settled: " + e.getMessage());
                }
            }
            FireBook book = FireBook.read(servers, "rare");
            System.out.println(book);
            assertThat(book.status.get(f))
                    .as("F, the old version's last fire (%s), caught up: %s", f, book)
                    .isEqualTo("COMPLETED");
            assertThat(book.effectsOf(f)).hasSize(1);
        }
    }

    /** One catch-up of {@code job}: one row in {@code fire_effect}, written in its fenced completion. */
    private static void effect(Tenure tenure, String job, String fire, String node) {
        tenure.coordinator()
                .run(
                        job,
                        fire,
                        RunPolicy.waitUpTo(TTL),
                        ctx -> ctx.completeInTransaction(servers.db.dataSource(), c -> {
                            try (PreparedStatement ps = c.prepareStatement(
                                    "INSERT INTO fire_effect (job, fire_key, node, via) VALUES (?, ?, ?, 'catch-up')")) {
                                ps.setString(1, job);
                                ps.setString(2, fire);
                                ps.setString(3, node);
                                return ps.executeUpdate();
                            }
                        }));
    }

    private static Tenure tenure(String node) {
        return Tenure.builder()
                .dataSource(servers.db.dataSource())
                .nodeName(node)
                .leaseDefaults(LeaseOptions.ofTtl(TTL))
                .sweepInterval(Duration.ofMillis(200))
                .build();
    }

    private static void assertOnceOrMissed(FireBook book, Instant f, String what) {
        String status = book.statusOf(f);
        assertThat(status).as("%s %s is accounted for: %s", what, f, book).isIn("COMPLETED", "MISSED");
        assertThat(book.effectsOf(f))
                .as("%s %s (%s) ran once, or never if MISSED: %s", what, f, status, book)
                .hasSize(status.equals("COMPLETED") ? 1 : 0);
    }

    /** True if {@code slot} is a slot of v1 only (an odd multiple of 3 s) after {@code first}. */
    private static boolean v1Only(Instant slot, Instant first) {
        return slot.isAfter(first) && !slotOf(slot, V2);
    }

    private static boolean slotOf(Instant t, Duration period) {
        return t.getNano() == 0 && t.toEpochMilli() % period.toMillis() == 0;
    }

    private static Instant next(Instant after, Duration period) {
        return Schedule.fixedRate(period).nextAfter(after).orElseThrow();
    }

    /** An instant read with microseconds, from the first column of {@code sql}. */
    private static Instant micros(String sql) throws SQLException {
        long us = servers.count("SELECT (extract(epoch FROM (" + sql + ")) * 1000000)::bigint");
        return Instant.ofEpochSecond(0, us * 1000);
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }

    private static JvmProcess node(String name, long registerAt, String... jobs) {
        List<String> args = new ArrayList<>(List.of(
                name,
                "default",
                servers.db.jdbcUrl(),
                servers.db.username(),
                servers.passwordArg(),
                Long.toString(TTL.toMillis()),
                Long.toString(registerAt)));
        args.addAll(List.of(jobs));
        return JvmProcess.start(List.of(), ScheduleNode.class.getName(), args);
    }
}
