package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.metrics.MetricNames;
import dev.tenure.testkit.Timing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sweeper in one process on real Postgres: fires that were due and that nobody ran are recorded MISSED (policy
 * SKIP) or caught up through the coordinator (policy CATCH_UP, the newest ones up to the bound); a MISSED fire is
 * refused to every later run; the meters count what was recorded.
 */
class MissedFiresIT {

    private static final Duration RATE = Duration.ofSeconds(1);
    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(MissedFiresIT.class);
        servers.execute("CREATE TABLE caught_up (job text NOT NULL, fire_key text NOT NULL)");
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    private static Tenure tenure(SimpleMeterRegistry registry) {
        return Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                .sweepInterval(Duration.ofMillis(200))
                .meterRegistry(registry)
                .build();
    }

    @Test
    void skip_recordsEveryFireNobodyRanMissed_andRefusesThemLater() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Tenure tenure = tenure(registry)) {
            tenure.register(ScheduledJob.of("skipped", Schedule.fixedRate(RATE), fire -> {
                        throw new AssertionError("SKIP never catches up");
                    })
                    .withPolicy(MissedFirePolicy.skip().withGrace(Duration.ofMillis(300))));
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> servers.count(
                                    "SELECT count(*) FROM tenure.job_runs WHERE job_key = 'skipped' AND status = 'MISSED'")
                            >= 3);
            String missed =
                    servers.one("SELECT fire_key FROM tenure.job_runs WHERE job_key = 'skipped' AND status = 'MISSED' "
                            + "ORDER BY fire_key LIMIT 1");
            assertThat(servers.one("SELECT error FROM tenure.job_runs WHERE job_key = 'skipped' AND fire_key = '"
                            + missed + "'"))
                    .isEqualTo("no node ran it; policy SKIP");
            RunOutcome<Object> late = tenure.coordinator().run("skipped", missed, RunPolicy.skipFire(), ctx -> {
                throw new AssertionError("a MISSED fire must not run");
            });
            assertThat(late.status()).isEqualTo(RunOutcome.Status.SKIPPED_MISSED);
            long rows = servers.count(
                    "SELECT count(*) FROM tenure.job_runs WHERE job_key = 'skipped' AND status = 'MISSED'");
            assertThat(registry.get(MetricNames.FIRE_MISSED)
                            .tag("job", "skipped")
                            .tag("reason", "not_run")
                            .counter()
                            .count())
                    .isGreaterThanOrEqualTo(rows - 1)
                    .isLessThanOrEqualTo(rows);
            // every due fire is accounted for: between the first and the last MISSED fire, no slot is without a row
            List<String> keys =
                    servers.strings("SELECT fire_key FROM tenure.job_runs WHERE job_key = 'skipped' ORDER BY fire_key");
            Instant first = Instant.parse(keys.get(0));
            for (int i = 0; i < keys.size(); i++) {
                assertThat(keys.get(i))
                        .isEqualTo(first.plus(RATE.multipliedBy(i)).toString());
            }
        }
    }

    @Test
    void catchUp_runsTheNewestOverdueFiresThroughTheCoordinator_andRecordsTheOlderOnesMissed() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicInteger catchUps = new AtomicInteger();
        String[] backlogEnd = new String[1];
        try (Tenure tenure = tenure(registry)) {
            ScheduledJob job = ScheduledJob.of("caught", Schedule.fixedRate(RATE), fire -> {
                        catchUps.incrementAndGet();
                        tenure.coordinator()
                                .run(
                                        "caught",
                                        fire,
                                        RunPolicy.skipFire(),
                                        ctx -> ctx.completeInTransaction(servers.db.dataSource(), c -> {
                                            try (PreparedStatement ps =
                                                    c.prepareStatement("INSERT INTO caught_up VALUES ('caught', ?)")) {
                                                ps.setString(1, fire);
                                                return ps.executeUpdate();
                                            }
                                        }));
                    })
                    .withPolicy(MissedFirePolicy.catchUp().withMaxCatchUps(3).withGrace(Duration.ofMillis(300)));
            // the whole cluster was down for 12 s: the job's sweep stood 12 s back when this node registered it
            servers.execute("INSERT INTO tenure.job_execution (job_key) VALUES ('caught')");
            servers.execute(
                    "INSERT INTO tenure.job_schedule (job_key, kind, expression, policy, integration, registered_by, "
                            + "swept_until) VALUES ('caught', 'fixed-rate', 'PT1S', 'catch-up', 'coordinator', 'gone', "
                            + "date_trunc('second', clock_timestamp()) - interval '12 seconds')");
            backlogEnd[0] = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
            tenure.register(job);
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> servers.count(
                                            "SELECT count(*) FROM tenure.job_runs WHERE job_key = 'caught' AND status = 'MISSED'")
                                    >= 8
                            && servers.count("SELECT count(*) FROM caught_up") >= 5);
        }
        long completed =
                servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'caught' AND status = 'COMPLETED'");
        assertThat(servers.count("SELECT count(*) FROM caught_up")).isEqualTo(completed);
        assertThat(servers.count("SELECT count(*) FROM caught_up GROUP BY fire_key ORDER BY 1 DESC LIMIT 1"))
                .isEqualTo(1);
        assertThat(servers.count("SELECT count(*) FROM caught_up u JOIN tenure.job_run r ON r.fire_key = u.fire_key "
                        + "AND r.job_key = 'caught' AND r.status = 'MISSED'"))
                .isZero();
        // the backlog is the 12 or 13 fires due before this node registered the job: the first sweep finds them all
        // overdue and catches up only the newest 3 of what is overdue then, so all but the newest 3 are MISSED. On a
        // loaded machine the node's own fires after the backlog can be late past the grace too: the next sweep then
        // catches up those newer ones and records a backlog fire that waited for its catch-up MISSED.
        List<String> backlog =
                servers.strings("SELECT fire_key FROM tenure.job_runs WHERE job_key = 'caught' AND fire_key < '"
                        + backlogEnd[0] + "' ORDER BY fire_key");
        assertThat(backlog).as("the backlog's fires, each with a row").hasSizeBetween(11, 13);
        List<String> backlogMissed = servers.strings("SELECT fire_key FROM tenure.job_runs WHERE job_key = 'caught' "
                + "AND status = 'MISSED' AND fire_key < '" + backlogEnd[0] + "' ORDER BY fire_key");
        assertThat(backlogMissed)
                .as("the backlog's MISSED fires")
                .startsWith(backlog.subList(0, backlog.size() - 3).toArray(String[]::new));
        assertThat(catchUps.get()).isGreaterThanOrEqualTo((int) completed);
        // no slot between the first and the last accounted fire lacks a row
        List<String> keys =
                servers.strings("SELECT fire_key FROM tenure.job_runs WHERE job_key = 'caught' ORDER BY fire_key");
        Instant first = Instant.parse(keys.get(0));
        for (int i = 0; i < keys.size(); i++) {
            assertThat(keys.get(i)).isEqualTo(first.plus(RATE.multipliedBy(i)).toString());
        }
    }
}
