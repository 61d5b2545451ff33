package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.testkit.StderrCapture;
import dev.tenure.testkit.Timing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, items 2 and 3, on real Postgres: what the sweeper says when the fleet comes back after an outage. The first
 * instance back logs one line per job that sums up its fires recorded MISSED (how many, from when to when, the policy,
 * why), not a line per fire; ALERT_ONLY says which fires are overdue, at most once a minute; and the gauges that only
 * the live sweeper publishes go when a node stops sweeping, so a {@code sum()} over the nodes does not count a former
 * sweeper's last figures.
 */
class SweepLogLinesIT {

    private static final Duration RATE = Duration.ofMinutes(1);
    private static final Pattern LINE = Pattern.compile(
            "(\\d+) fires? of '([^']+)' recorded MISSED, (\\S+?)(?:\\.\\.(\\S+))?, policy (skip|catch-up|alert-only) .*why: ");

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(SweepLogLinesIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @BeforeEach
    void clean() throws Exception {
        servers.execute("TRUNCATE tenure.job_run, tenure.job_catch_up, tenure.job_schedule_span, "
                + "tenure.job_schedule_version, tenure.job_schedule CASCADE");
        servers.execute("DELETE FROM tenure.job_execution");
    }

    @Test
    void theReturnAfterAnOutage_logsOneSummaryLinePerJob_withCountRangePolicyAndReason() throws Exception {
        // the fire at the minute's start is due a grace (1 s) after it: a start within that second would see it in a
        // sweep of its own, a second line per job that is not about the outage
        pastTheMinutesFirstSeconds();
        Instant end = minute();
        // three jobs whose fleet was down for three hours, one for twenty minutes (inside the policy's max age)
        outage("invoicing", end.minus(Duration.ofHours(3)), "skip");
        outage("reports", end.minus(Duration.ofHours(3)), "skip");
        outage("exports", end.minus(Duration.ofHours(3)), "skip");
        outage("short", end.minus(Duration.ofMinutes(20)), "skip");
        try (StderrCapture log = new StderrCapture();
                Tenure tenure = tenure(new SimpleMeterRegistry())) {
            for (String job : List.of("invoicing", "reports", "exports", "short")) {
                tenure.register(ScheduledJob.of(job, Schedule.fixedRate(RATE), fire -> {
                            throw new AssertionError("skip never catches up");
                        })
                        .withPolicy(MissedFirePolicy.skip().withGrace(Duration.ofSeconds(1))));
            }
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() ->
                            servers.count("SELECT count(*) FROM tenure.job_schedule WHERE swept_until >= '" + end + "'")
                                    == 4);
            Thread.sleep(Timing.scaled(Duration.ofMillis(600)).toMillis()); // a few more sweeps: they say nothing
            List<String> lines = log.lines().stream()
                    .filter(l -> l.contains("recorded MISSED"))
                    .toList();
            lines.forEach(System.out::println);
            // at most one line per job per sweep that recorded something: here one per job (two if a minute began)
            long minutesCrossed = Duration.between(end, minute()).toMinutes();
            assertThat(lines).as("lines about fires recorded MISSED").hasSizeBetween(4, (int)
                    (4 * (1 + minutesCrossed)));
            for (String job : List.of("invoicing", "reports", "exports", "short")) {
                long logged = 0;
                for (String l : lines) {
                    Matcher m = LINE.matcher(l);
                    assertThat(m.find()).as("a summary line: " + l).isTrue();
                    if (!m.group(2).equals(job)) {
                        continue;
                    }
                    assertThat(m.group(5)).isEqualTo("skip");
                    long n = Long.parseLong(m.group(1));
                    Instant from = Instant.parse(m.group(3));
                    Instant until = m.group(4) == null ? from : Instant.parse(m.group(4));
                    // the line's count is the fires the ledger recorded in its range, in rows and summary records
                    assertThat(n).as(l).isEqualTo(recorded(job, from, until));
                    logged += n;
                }
                assertThat(logged)
                        .as("fires of " + job + " in its lines")
                        .isEqualTo(recorded(job, Instant.EPOCH, end.plus(Duration.ofHours(1))));
                assertThat(logged).as("fires of " + job).isGreaterThanOrEqualTo(job.equals("short") ? 20 : 180);
            }
            assertThat(log.lines().stream().filter(l -> l.contains("WARN") && l.contains("MissedFires")))
                    .as("the sweeper's warnings: the summary lines only, no line per fire")
                    .containsExactlyElementsOf(lines);
        }
    }

    @Test
    void alertOnly_logsItsOverdueFires_atMostOnceAMinute() throws Exception {
        Instant end = minute();
        outage("watched", end.minus(Duration.ofMinutes(5)), "alert-only");
        try (StderrCapture log = new StderrCapture();
                Tenure tenure = tenure(new SimpleMeterRegistry())) {
            tenure.register(ScheduledJob.of("watched", Schedule.fixedRate(RATE), fire -> {
                        throw new AssertionError("alert-only never runs a fire");
                    })
                    .withPolicy(MissedFirePolicy.alertOnly().withGrace(Duration.ofSeconds(1))));
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() ->
                            log.lines().stream().anyMatch(l -> l.contains("job 'watched'") && l.contains("overdue")));
            Thread.sleep(Timing.scaled(Duration.ofSeconds(2)).toMillis()); // ten more sweeps
            List<String> lines = log.lines().stream()
                    .filter(l -> l.contains("job 'watched'") && l.contains("overdue"))
                    .toList();
            lines.forEach(System.out::println);
            assertThat(lines).as("alert lines in 2 s of sweeps every 200 ms").hasSize(1);
            assertThat(lines.get(0))
                    .contains("WARN")
                    .containsPattern("\\d fire\\(s\\) overdue and not run, "
                            + Pattern.quote(end.minus(Duration.ofMinutes(4)).toString()) + "\\.\\.")
                    .contains("alert-only");
            assertThat(servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'watched'"))
                    .as("alert-only records and runs nothing")
                    .isZero();
        }
    }

    @Test
    void aNodeThatStopsSweeping_stopsPublishingTheSweepersGauges() throws Exception {
        Instant end = minute();
        outage("watched", end.minus(Duration.ofMinutes(5)), "alert-only");
        SimpleMeterRegistry one = new SimpleMeterRegistry();
        SimpleMeterRegistry two = new SimpleMeterRegistry();
        try (Tenure a = tenure(one);
                Tenure b = tenure(two)) {
            for (Tenure t : List.of(a, b)) {
                t.register(ScheduledJob.of("watched", Schedule.fixedRate(RATE), fire -> {
                            throw new AssertionError("alert-only never runs a fire");
                        })
                        .withPolicy(MissedFirePolicy.alertOnly().withGrace(Duration.ofSeconds(1))));
            }
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> overdue(one) + overdue(two) >= 4);
            assertThat(publishing(one) + publishing(two))
                    .as("nodes publishing the overdue gauge")
                    .isEqualTo(1);
            MeterRegistry sweeper = publishing(one) == 1 ? one : two;
            // another participant takes the sweeper election, as when the sweeper froze past its lease: the former
            // sweeper finds out at its next renewal and stops publishing
            servers.execute("UPDATE tenure.job_execution SET fencing_token = fencing_token + 1, owner = 'intruder', "
                    + "status = 'HELD', lease_expires_at = clock_timestamp() + interval '1 hour' "
                    + "WHERE job_key = 'tenure-sweeper'");
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> publishing(one) + publishing(two) == 0);
            assertThat(sweeper.find("tenure.schedule.unswept").gauges())
                    .as("unswept gauge of the former sweeper")
                    .isEmpty();
            // the election comes back: the new sweeper publishes again
            servers.execute(
                    "UPDATE tenure.job_execution SET lease_expires_at = clock_timestamp() - interval '1 second' "
                            + "WHERE job_key = 'tenure-sweeper'");
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(15)))
                    .until(() -> publishing(one) + publishing(two) == 1 && overdue(one) + overdue(two) >= 4);
        }
    }

    private static long publishing(MeterRegistry r) {
        return r.find("tenure.fire.overdue").gauges().size();
    }

    private static double overdue(MeterRegistry r) {
        return r.find("tenure.fire.overdue").gauges().stream()
                .mapToDouble(g -> g.value())
                .sum();
    }

    private static Tenure tenure(MeterRegistry registry) {
        return Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                .sweepInterval(Duration.ofMillis(200))
                .meterRegistry(registry)
                .build();
    }

    /** The fires of {@code job} the ledger recorded MISSED, due from {@code from} to {@code until}. */
    private static long recorded(String job, Instant from, Instant until) throws Exception {
        long rows = servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + job + "' AND status = "
                + "'MISSED' AND fire_key NOT LIKE '%..%' AND fire_key::timestamptz BETWEEN '" + from + "' AND '" + until
                + "'");
        String sum =
                servers.one("SELECT coalesce(sum(split_part(error, ' ', 1)::bigint), 0) FROM tenure.job_runs WHERE "
                        + "job_key = '" + job
                        + "' AND status = 'MISSED' AND fire_key LIKE '%..%' AND split_part(fire_key, "
                        + "'..', 1)::timestamptz >= '" + from + "' AND split_part(fire_key, '..', 2)::timestamptz <= '"
                        + until
                        + "'");
        return rows + Long.parseLong(sum);
    }

    /** The job's schedule and position as an outage of the whole fleet since {@code since} left them. */
    private static void outage(String job, Instant since, String policy) throws Exception {
        servers.execute("INSERT INTO tenure.job_execution (job_key) VALUES ('" + job + "')");
        servers.execute(
                // the whole policy, as the registration wrote it: a sweep before this process registers the job
                // reads the policy from these columns
                "INSERT INTO tenure.job_schedule (job_key, kind, expression, policy, integration, registered_by, "
                        + "swept_until, seen_at, check_at, policy_action, grace_ms) VALUES ('" + job + "', "
                        + "'fixed-rate', 'PT1M', '" + policy + "', 'coordinator', 'gone', '" + since + "', "
                        + "clock_timestamp(), clock_timestamp(), '"
                        + policy.toUpperCase().replace('-', '_')
                        + "', 1000)");
    }

    /** Waits until the database clock is at least 2 s into its minute. */
    private static void pastTheMinutesFirstSeconds() throws Exception {
        double second = Double.parseDouble(servers.one("SELECT extract(second FROM clock_timestamp())"));
        if (second < 2) {
            Thread.sleep((long) ((2 - second) * 1000) + 50);
        }
    }

    private static Instant minute() throws Exception {
        return servers.databaseNow("minute");
    }
}
