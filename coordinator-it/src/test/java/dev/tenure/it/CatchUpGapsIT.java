package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, item 5, on real Postgres: catch-ups never starve the regular fires. A job on a 1-second rate whose runs take
 * 250 ms comes back from an outage with ten fires to catch up. Its host scheduler fires every slot on time and skips a
 * fire whose job is held (as {@code @Coordinated} without {@code maxWait} does). Before, the ten catch-ups ran back to
 * back (about 3 s holding the job), so the regular fires inside that time were skipped and became catch-ups in turn, late.
 * Now a catch-up starts only in a gap long enough for it: at most the first (whose length nobody knew yet) meets a
 * regular fire; every catch-up still runs, and every fire is run once.
 */
class CatchUpGapsIT {

    private static final Duration RATE = Duration.ofSeconds(1);
    private static final long WORK_MS = 250;

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(CatchUpGapsIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void tenCatchUpsOfA250msJobOnA1sRate_runInTheGaps_theRegularFiresAreNotSkipped() throws Exception {
        Map<String, String> ran = new ConcurrentHashMap<>(); // fire key -> "regular" or "catch-up"
        Map<String, RunOutcome.Status> regular = new ConcurrentHashMap<>();
        Schedule schedule = Schedule.fixedRate(RATE);
        ScheduledExecutorService host = Executors.newSingleThreadScheduledExecutor();
        try (Tenure tenure = tenure()) {
            Instant now = servers.databaseNow("second");
            // an outage of the whole fleet left the position 20 s back
            outage("gappy", now.minusSeconds(20));
            // the host scheduler fires each slot on time, and skips it if the job is held
            hostFires(host, tenure, schedule, "gappy", WORK_MS, regular, ran);
            // the job is registered once its scheduler fires it here (a job you register yourself: Tenure yields to
            // the regular fires it has seen run here)
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> !regular.isEmpty());
            registerCatchingUp(tenure, "gappy", schedule, WORK_MS, 10, ran);

            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(40)))
                    .conditionEvaluationListener(c -> {
                        if (c.getRemainingTimeInMS() < 1000) {
                            System.out.println("regular fires: " + regular + "; ran: " + ran);
                        }
                    })
                    .until(() ->
                            ran.values().stream().filter("catch-up"::equals).count() >= 10 && regular.size() >= 8);
            // no interrupt: a regular run in progress (and the slot already queued) ends and records its outcome
            host.shutdown();
            host.awaitTermination(Timing.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
            System.out.println("regular fires: " + new java.util.TreeMap<>(regular));
            System.out.println("ran: " + new java.util.TreeMap<>(ran));
            long skipped = regular.values().stream()
                    .filter(s -> s == RunOutcome.Status.SKIPPED_HELD_ELSEWHERE)
                    .count();
            assertThat(skipped)
                    .as("regular fires skipped because a catch-up held the job (only the first catch-up may meet one)")
                    .isLessThanOrEqualTo(1);
            // the ten newest overdue fires were caught up, and a regular fire that was skipped was caught up in turn
            assertThat(ran.values().stream().filter("catch-up"::equals).count()).isGreaterThanOrEqualTo(10);
            regular.forEach((fire, status) -> {
                if (status == RunOutcome.Status.SKIPPED_HELD_ELSEWHERE) {
                    assertThat(ran).as("the skipped regular fire " + fire).containsEntry(fire, "catch-up");
                }
            });
            tenure.close(); // a catch-up that began after the wait ended finishes and records its run first
            assertThat(servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'gappy' AND status = "
                            + "'COMPLETED'"))
                    .as("completed fires, each once")
                    .isEqualTo(ran.size());
        } finally {
            host.shutdownNow();
        }
    }

    /**
     * A job whose runs take 800 ms of each 1 s slot leaves no gap long enough for a catch-up: its catch-ups wait for
     * three of its periods with none of them started, then run anyway (late, each meeting at most one regular fire),
     * instead of waiting until their fires pass {@code maxAge} (an hour) with the fires neither run nor reported.
     */
    @Test
    void catchUpsOfAJobThatLeavesNoGap_runAnyway_afterThreeOfItsPeriods() throws Exception {
        Map<String, String> ran = new ConcurrentHashMap<>();
        Map<String, RunOutcome.Status> regular = new ConcurrentHashMap<>();
        Schedule schedule = Schedule.fixedRate(RATE);
        ScheduledExecutorService host = Executors.newSingleThreadScheduledExecutor();
        try (Tenure tenure = tenure()) {
            Instant now = servers.databaseNow("second");
            outage("busy", now.minusSeconds(10));
            hostFires(host, tenure, schedule, "busy", 800, regular, ran);
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> !regular.isEmpty());
            registerCatchingUp(tenure, "busy", schedule, 800, 3, ran);
            // three overdue fires, each after about three periods of waiting: well within 30 s (scaled); before, none
            // ran until their fires were an hour old
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(30)))
                    .until(() ->
                            ran.values().stream().filter("catch-up"::equals).count() >= 3);
            // no interrupt: a regular run in progress (and the slot already queued) ends and records its outcome
            host.shutdown();
            host.awaitTermination(Timing.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
            System.out.println("busy: regular fires: " + new java.util.TreeMap<>(regular));
            System.out.println("busy: ran: " + new java.util.TreeMap<>(ran));
            tenure.close(); // a catch-up that began after the wait ended finishes and records its run first
            assertThat(servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'busy' AND status = "
                            + "'COMPLETED'"))
                    .as("completed fires, each once")
                    .isEqualTo(ran.size());
        } finally {
            host.shutdownNow();
        }
    }

    /** The job's schedule and position as an outage of the whole fleet left them: accounted for up to {@code since}. */
    private static void outage(String job, Instant since) throws Exception {
        servers.execute("INSERT INTO tenure.job_execution (job_key) VALUES ('" + job + "')");
        servers.execute("INSERT INTO tenure.job_schedule (job_key, kind, expression, policy, integration, "
                + "registered_by, swept_until, seen_at, check_at) VALUES ('" + job + "', 'fixed-rate', 'PT1S', "
                + "'catch-up', 'coordinator', 'gone', '" + since + "', clock_timestamp(), clock_timestamp())");
    }

    /**
     * Registers {@code job} with Tenure, its catch-ups running the work for {@code workMs} (waiting up to 3 s for the
     * job), at most {@code maxCatchUps} of them, a grace of 300 ms.
     */
    private static void registerCatchingUp(
            Tenure tenure, String job, Schedule schedule, long workMs, int maxCatchUps, Map<String, String> ran) {
        tenure.register(ScheduledJob.of(
                        job,
                        schedule,
                        fire -> tenure.coordinator()
                                .run(
                                        job,
                                        fire,
                                        RunPolicy.waitUpTo(Duration.ofSeconds(3)),
                                        ctx -> work(ran, fire, "catch-up", workMs)))
                .withPolicy(
                        MissedFirePolicy.catchUp().withMaxCatchUps(maxCatchUps).withGrace(Duration.ofMillis(300))));
    }

    /** A Tenure on the class's database: 3 s leases, a sweep every 200 ms. */
    private static Tenure tenure() {
        return Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(3)))
                .sweepInterval(Duration.ofMillis(200))
                .build();
    }

    /**
     * The host scheduler: fires each one-second slot of {@code job} on time (work of {@code workMs}), skips it if the
     * job is held, and records each regular fire's outcome.
     */
    private static void hostFires(
            ScheduledExecutorService host,
            Tenure tenure,
            Schedule schedule,
            String job,
            long workMs,
            Map<String, RunOutcome.Status> regular,
            Map<String, String> ran) {
        Runnable[] slot = new Runnable[1];
        slot[0] = () -> {
            try {
                Instant at = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
                String fire = schedule.fireKey(at);
                RunOutcome<Void> o = tenure.coordinator()
                        .run(job, fire, RunPolicy.skipFire(), ctx -> work(ran, fire, "regular", workMs));
                regular.put(fire, o.status());
            } catch (RuntimeException | Error e) {
                e.printStackTrace();
            } finally {
                host.schedule(slot[0], 1000 - Instant.now().toEpochMilli() % 1000 + 20, TimeUnit.MILLISECONDS);
            }
        };
        host.schedule(slot[0], 1000 - Instant.now().toEpochMilli() % 1000 + 20, TimeUnit.MILLISECONDS);
    }

    private static Void work(Map<String, String> ran, String fire, String how, long ms) throws InterruptedException {
        Thread.sleep(ms);
        if (ran.putIfAbsent(fire, how) != null) {
            throw new AssertionError("fire " + fire + " ran twice");
        }
        return null;
    }
}
