package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenure.DatabaseConfig;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue item 5, clock skew: the sweeper's node has a wall clock 6 s ahead (libfaketime, {@link SkewedSweeperNode}),
 * grace 2 s, and is the only process that registers the job, so it sweeps alone. This JVM, with a correct clock, runs
 * every fire on time through the coordinator. The database's clock decides what is due: under SKIP no on-time fire is
 * refused or recorded MISSED; under CATCH_UP no run starts before its slot (by the database's clock). The skewed node
 * warns once that its clock is ahead and reports the skew on {@code tenure.clock.skew}.
 */
class ClockSkewIT {

    private static final Path FAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    private static final String SKEW = "+6s";
    private static final Duration RATE = Duration.ofSeconds(1);
    private static final Duration GRACE = Duration.ofSeconds(2);
    /** Fires this JVM runs on time: the skewed sweeper would have judged the last ones of them 4 s early. */
    private static final int FIRES = 10;

    private static final Duration WAIT = Timing.scaled(Duration.ofSeconds(2));

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(ClockSkewIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void skip_sweeperSixSecondsAhead_noOnTimeFireIsRefusedOrRecordedMissed() throws Exception {
        String job = "skewed-skip";
        try (Child sweeper = Child.start(job, "skip")) {
            List<String> ran = runOnTime(sweeper, job);
            for (String fire : ran) {
                assertThat(servers.one("SELECT status FROM tenure.job_runs WHERE job_key = '" + job
                                + "' AND fire_key = '" + fire + "'"))
                        .as("the run row of on-time fire %s", fire)
                        .isEqualTo("COMPLETED");
            }
            assertThat(servers.count("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + job
                            + "' AND status = 'MISSED' AND fire_key IN ('" + String.join("', '", ran) + "')"))
                    .as("MISSED records of on-time fires")
                    .isZero();
            sweeper.assertWarnedOnce();
        }
    }

    @Test
    void catchUp_sweeperSixSecondsAhead_noRunStartsBeforeItsSlot() throws Exception {
        String job = "skewed-catch-up";
        try (Child sweeper = Child.start(job, "catch-up")) {
            runOnTime(sweeper, job);
            List<String> early = servers.strings("SELECT fire_key || ' started at ' || started_at || ' by ' || node "
                    + "FROM tenure.job_runs WHERE job_key = '" + job + "' AND started_at < fire_key::timestamptz");
            System.out.println("runs of " + job + " that started before their slot: " + early);
            assertThat(early).as("runs that started before their slot").isEmpty();
            sweeper.assertWarnedOnce();
        }
    }

    /**
     * Runs {@link #FIRES} fires of {@code job} at their slots by this JVM's (correct) clock, then waits until the
     * skewed sweeper has swept past the last one; returns their fire keys. Every one of them must run here.
     */
    private static List<String> runOnTime(Child sweeper, String job) throws Exception {
        List<String> outcomes = new ArrayList<>();
        List<String> fires = new ArrayList<>();
        long period = RATE.toMillis();
        long first = (System.currentTimeMillis() / period + 2) * period;
        try (Tenure runner = Tenure.builder()
                .dataSource(servers.db.dataSource())
                .migrateSchema(false)
                .database(DatabaseConfig.builder().listen(false).build())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                .build()) {
            for (int i = 0; i < FIRES; i++) {
                long slot = first + i * period;
                Thread.sleep(Math.max(0, slot - System.currentTimeMillis()));
                String fire = Instant.ofEpochMilli(slot).toString();
                // a catch-up of an earlier fire may hold the job for a moment: the fire waits for it, as a host would
                RunOutcome<Object> o = runner.coordinator().run(job, fire, RunPolicy.waitUpTo(WAIT), ctx -> {
                    FencedWrite.insert(servers.db.dataSource(), ctx, job + "/" + fire);
                    return null;
                });
                fires.add(fire);
                outcomes.add(fire + " " + o.status());
            }
        }
        String last = fires.get(fires.size() - 1);
        Awaitility.await()
                .atMost(Timing.scaled(GRACE.plus(Duration.ofSeconds(5))))
                .until(() -> "t"
                        .equals(servers.one("SELECT swept_until >= '" + last + "'::timestamptz FROM "
                                + "tenure.job_schedule WHERE job_key = '" + job + "'")));
        System.out.println("fires of " + job + " run on time by this JVM: " + outcomes + "; the skewed sweeper: "
                + sweeper.lastSkewLine() + "; the job's runs: "
                + servers.strings("SELECT fire_key || ' ' || status || ' started ' || started_at || ' by ' "
                        + "|| coalesce(node, owner) FROM tenure.job_runs WHERE job_key = '" + job
                        + "' ORDER BY fire_key"));
        assertThat(outcomes).as("the on-time runs").allMatch(o -> o.endsWith(" EXECUTED"));
        return fires;
    }

    /** A {@link SkewedSweeperNode} under libfaketime ({@link JvmProcess} cannot set LD_PRELOAD). */
    private record Child(Process process, Path out, Path err) implements AutoCloseable {

        static Child start(String job, String policy) throws Exception {
            // never a silent skip: without libfaketime this test fails and says what to install
            assertTrue(
                    Files.exists(FAKETIME),
                    "libfaketime is not installed: apt-get install faketime (scripts/prerequisites.sh does this)");
            Path out = Files.createTempFile("tenure-skewed-sweeper-", ".out");
            Path err = Files.createTempFile("tenure-skewed-sweeper-", ".err");
            ProcessBuilder pb = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-Xmx128m",
                            "-cp",
                            JvmProcess.classPath(),
                            SkewedSweeperNode.class.getName(),
                            servers.db.jdbcUrl(),
                            servers.db.username(),
                            servers.passwordArg(),
                            job,
                            policy,
                            Long.toString(RATE.toMillis()),
                            Long.toString(GRACE.toMillis()))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            pb.environment().put("LD_PRELOAD", FAKETIME.toString());
            pb.environment().put("FAKETIME", SKEW);
            pb.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
            // without this, glibc 2.36's timed waits (parkNanos, Object.wait) return at once under a positive offset:
            // the
            // JVM's timers spin and its start-up takes a minute on a busy machine
            pb.environment().put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
            Child c = new Child(pb.start(), out, err);
            Instant wall = Instant.parse(c.await("WALL ").substring(5));
            assertThat(Duration.between(Instant.now(), wall))
                    .as("the child's wall clock is ahead")
                    .isGreaterThan(Duration.ofSeconds(4));
            System.out.println("the skewed node: " + c.await("REGISTERED"));
            return c;
        }

        String await(String prefix) throws Exception {
            long deadline =
                    System.nanoTime() + Timing.scaled(Duration.ofSeconds(60)).toNanos();
            while (System.nanoTime() < deadline) {
                for (String line : Files.readAllLines(out)) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                if (!process.isAlive()) {
                    throw new IllegalStateException("the skewed node exited " + process.exitValue() + ": "
                            + Files.readAllLines(out) + Files.readAllLines(err));
                }
                Thread.sleep(20);
            }
            throw new IllegalStateException("no line starting with '" + prefix + "' from the skewed node: "
                    + Files.readAllLines(out) + Files.readAllLines(err));
        }

        String lastSkewLine() throws IOException {
            List<String> skews = Files.readAllLines(out).stream()
                    .filter(l -> l.startsWith("SKEW "))
                    .toList();
            return skews.isEmpty() ? "no SKEW line" : skews.get(skews.size() - 1);
        }

        /** One WARN that the node's clock is ahead, and the skew on the gauge: 6 s, give or take a second. */
        void assertWarnedOnce() throws IOException {
            List<String> warnings = Files.readAllLines(err).stream()
                    .filter(l -> l.contains("WARN") && l.contains("this node's clock is"))
                    .toList();
            System.out.println("the skewed node's warnings: " + warnings);
            assertThat(warnings).as("warnings that this node's clock is off").hasSize(1);
            assertThat(warnings.get(0)).contains("ahead of the database's");
            String gauge = lastSkewLine().substring(5);
            assertThat(gauge).as("tenure.clock.skew (s)").isNotEqualTo("none");
            assertThat(Double.parseDouble(gauge)).as("tenure.clock.skew (s)").isBetween(5.0, 7.0);
        }

        @Override
        public void close() throws Exception {
            process.getOutputStream().close(); // the node closes its Tenure and exits
            if (!process.waitFor(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
            }
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
