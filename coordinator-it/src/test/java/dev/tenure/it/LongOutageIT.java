package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.LeaseOptions;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.testkit.Timing;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * After an outage of 8 days, 40 jobs on a one-minute rate (460,800 fires): the sweeper makes progress at once and
 * accounts for every fire with a few rows per job. The newest 10 fires of each job are caught up, the other fires of the
 * last hour get a MISSED row each for the newest 10 and a summary for the rest, and the fires older than an hour one
 * summary record. Before schedules were data, the first sweep examined 200,000 fires in one transaction, hit the
 * statement timeout, and so did every later sweep: no position moved, no fire was accounted for.
 */
class LongOutageIT {

    private static final int JOBS = 40;
    private static final Duration RATE = Duration.ofMinutes(1);
    private static final Duration OUTAGE = Duration.ofDays(8);
    private static final Pattern SUMMARY = Pattern.compile("^(\\d+) fires due from (\\S+) to (\\S+) missed");

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(LongOutageIT.class);
        servers.execute("CREATE TABLE caught_up (job text NOT NULL, fire_key text NOT NULL, UNIQUE (job, fire_key))");
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void eightDaysOfFires_everyFireAccountedFor_aFewRowsPerJob_positionsCurrent() throws Exception {
        try (Tenure tenure = Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(5)))
                .sweepInterval(Duration.ofMillis(200))
                .build()) {
            Instant end = servers.databaseNow("minute");
            // the schedules and their positions as an 8-day outage of the whole fleet left them
            for (int i = 0; i < JOBS; i++) {
                String job = "outage-" + i;
                servers.execute("INSERT INTO tenure.job_execution (job_key) VALUES ('" + job + "')");
                servers.execute("INSERT INTO tenure.job_schedule (job_key, kind, expression, policy, integration, "
                        + "registered_by, swept_until, seen_at, check_at) VALUES ('" + job
                        + "', 'fixed-rate', 'PT1M', 'catch-up', 'coordinator', 'gone', "
                        + "'" + end.minus(OUTAGE) + "', clock_timestamp(), clock_timestamp())");
            }
            long started = System.nanoTime();
            for (int i = 0; i < JOBS; i++) {
                String job = "outage-" + i;
                tenure.register(ScheduledJob.of(
                        job,
                        Schedule.fixedRate(RATE),
                        fire -> tenure.coordinator()
                                .run(
                                        job,
                                        fire,
                                        RunPolicy.waitUpTo(Duration.ofSeconds(5)),
                                        ctx -> ctx.completeInTransaction(servers.db.dataSource(), c -> {
                                            try (PreparedStatement ps =
                                                    c.prepareStatement("INSERT INTO caught_up VALUES (?, ?)")) {
                                                ps.setString(1, job);
                                                ps.setString(2, fire);
                                                return ps.executeUpdate();
                                            }
                                        }))));
            }
            // progress at once: positions move in the first sweeps
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(30)))
                    .until(() -> servers.count("SELECT count(*) FROM tenure.job_schedule WHERE swept_until > "
                                    + "clock_timestamp() - interval '1 day'")
                            == JOBS);
            // every job's account is current: every fire up to the outage's end is settled, its catch-ups ran
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(90)))
                    .until(() ->
                            servers.count("SELECT count(*) FROM tenure.job_schedule WHERE swept_until >= '" + end + "'")
                                    == JOBS);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).isLessThan(Timing.scaled(Duration.ofSeconds(120)));
            for (int i = 0; i < JOBS; i++) {
                String job = "outage-" + i;
                // the fires of the backlog: every minute from 8 days before the end to the end
                Instant first = end.minus(OUTAGE).plus(RATE);
                long fires = OUTAGE.dividedBy(RATE);
                long rows = servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + job
                        + "' AND fire_key <= '" + end + "' AND fire_key NOT LIKE '%..%'");
                long completed = servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + job
                        + "' AND status = 'COMPLETED' AND fire_key <= '" + end + "'");
                // the newest 10 overdue fires when the first sweep came: 9 if a minute began before it, 11 if the
                // outage's last fire was not overdue yet then (it is caught up at the next sweep)
                assertThat(completed).as("caught up: the newest 10").isBetween(9L, 11L);
                assertThat(servers.strings("SELECT fire_key FROM caught_up WHERE job = '" + job + "' AND fire_key <= '"
                                + end + "' ORDER BY 1"))
                        .hasSize((int) completed)
                        .allSatisfy(k -> assertThat(Instant.parse(k)).isAfter(end.minus(Duration.ofMinutes(12))));
                long summarised = 0;
                List<String> summaries = servers.strings("SELECT error FROM tenure.job_runs WHERE job_key = '" + job
                        + "' AND fire_key LIKE '%..%' AND status = 'MISSED'");
                assertThat(summaries).as("summary records of " + job).hasSizeBetween(1, 3);
                for (String s : summaries) {
                    Matcher m = SUMMARY.matcher(s);
                    assertThat(m.find()).as(s).isTrue();
                    assertThat(Instant.parse(m.group(2))).isAfterOrEqualTo(first);
                    summarised += Long.parseLong(m.group(1));
                }
                // every fire of the backlog is one of: caught up, MISSED with a row, counted in a summary
                assertThat(rows + summarised)
                        .as("fires of " + job + " accounted for")
                        .isEqualTo(fires);
                assertThat(rows + summaries.size()).as("rows of " + job).isLessThanOrEqualTo(25);
            }
            // no fire ran twice
            assertThat(servers.count("SELECT count(*) FROM (SELECT 1 FROM caught_up GROUP BY job, fire_key "
                            + "HAVING count(*) > 1) d"))
                    .isZero();
        }
    }
}
