package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.testkit.StderrCapture;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue item 11, the sweeper's side: {@link Schedule} is a public interface that users implement, so one schedule that
 * throws, or that never moves forward (Spring 7's {@code CronExpression.next} at the Lord Howe and Chatham DST
 * overlaps), must not stop the sweeps of the others. On real Postgres, in one process that registers both broken jobs
 * and a normal one: the normal job's fires are recorded MISSED sweep after sweep, the broken jobs' {@code sweep_error}
 * says why, and the sweeper warns at most once a minute per broken job.
 */
class BrokenScheduleIT {

    private static final Duration RATE = Duration.ofSeconds(1);
    private static final Duration GRACE = Duration.ofMillis(300);
    private static final Duration SWEEP = Duration.ofMillis(200);

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(BrokenScheduleIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void oneScheduleThrows_anotherNeverMovesForward_theNormalJobIsSweptEverySweep_andTheBrokenOnesSayWhy()
            throws Exception {
        try (StderrCapture log = new StderrCapture();
                Tenure tenure = Tenure.builder()
                        .dataSource(servers.db.dataSource())
                        .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                        .sweepInterval(SWEEP)
                        .build()) {
            // the broken jobs come first and have long graces (a catch-up job may well wait minutes)
            tenure.register(job("throws", new Throwing())
                    .withPolicy(MissedFirePolicy.skip().withGrace(Duration.ofSeconds(30))));
            tenure.register(
                    job("stuck", new Stuck()).withPolicy(MissedFirePolicy.skip().withGrace(Duration.ofSeconds(30))));
            tenure.register(job("steady", Schedule.fixedRate(RATE))
                    .withPolicy(MissedFirePolicy.skip().withGrace(GRACE)));
            Instant registered = Instant.now();

            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> missed("steady").size() >= 5);

            // each fire of the normal job was recorded within a few sweeps of its grace, none waited for the others
            List<String> late = servers.strings("SELECT fire_key || ' recorded after ' || "
                    + "(extract(epoch FROM finished_at - fire_key::timestamptz) * 1000)::bigint || ' ms' "
                    + "FROM tenure.job_runs WHERE job_key = 'steady' AND status = 'MISSED' AND finished_at > "
                    + "fire_key::timestamptz + " + Timing.scaledMillis(GRACE.toMillis() + 1200)
                    + " * interval '1 millisecond'");
            System.out.printf(
                    "steady: %d fire(s) MISSED within %d ms of registering; late records: %s%n",
                    missed("steady").size(),
                    Duration.between(registered, Instant.now()).toMillis(),
                    late);
            assertThat(late)
                    .as("MISSED records of the normal job that came late")
                    .isEmpty();
            List<String> keys = missed("steady");
            for (int i = 1; i < keys.size(); i++) {
                assertThat(Instant.parse(keys.get(i)))
                        .as("no fire of the normal job is skipped over")
                        .isEqualTo(Instant.parse(keys.get(i - 1)).plus(RATE));
            }

            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> sweepError("throws") != null && sweepError("stuck") != null);
            assertThat(sweepError("throws")).contains("this schedule cannot say when");
            assertThat(sweepError("stuck")).contains("does not move forward");
            assertThat(servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key IN ('throws', 'stuck')"))
                    .isZero();

            List<String> lines = log.lines();
            assertThat(lines.stream().filter(l -> l.contains("job 'throws': its sweep failed")))
                    .as("warnings about the throwing schedule (at most one a minute)")
                    .hasSize(1);
            assertThat(lines.stream().filter(l -> l.contains("job 'stuck': its sweep failed")))
                    .as("warnings about the stuck schedule (at most one a minute)")
                    .hasSize(1);
            assertThat(lines.stream().filter(l -> l.contains("a sweep for missed fires failed")))
                    .as("whole sweeps that failed")
                    .isEmpty();
        }
    }

    private static ScheduledJob job(String key, Schedule schedule) {
        return ScheduledJob.of(key, schedule, fire -> {
            throw new AssertionError("SKIP never catches up");
        });
    }

    private static List<String> missed(String job) throws Exception {
        return servers.strings("SELECT fire_key FROM tenure.job_runs WHERE job_key = '" + job
                + "' AND status = 'MISSED' ORDER BY fire_key");
    }

    private static String sweepError(String job) throws Exception {
        return servers.one("SELECT sweep_error FROM tenure.job_schedule WHERE job_key = '" + job + "'");
    }

    /** A user's schedule that throws whenever it is asked. */
    private static final class Throwing implements Schedule {
        @Override
        public String kind() {
            return "test-throwing";
        }

        @Override
        public String expression() {
            return "always throws";
        }

        @Override
        public Optional<Instant> nextAfter(Instant after) {
            throw new IllegalStateException("test: this schedule cannot say when it fires after " + after);
        }
    }

    /** A schedule whose next fire never moves past its argument, nor past a fixed instant, however late it is asked. */
    private static final class Stuck implements Schedule {
        private static final Instant AT = Instant.parse("2026-04-05T02:00:00Z");

        @Override
        public String kind() {
            return "test-stuck";
        }

        @Override
        public String expression() {
            return "stuck at " + AT;
        }

        @Override
        public Optional<Instant> nextAfter(Instant after) {
            return Optional.of(after.isAfter(AT) ? AT : after); // never after its argument
        }
    }
}
