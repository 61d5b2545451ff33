package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Valkey lease is a filter in front of the database lease (issue 22, items 3 and 4), with the holder in a JVM of
 * its own and real valkey-server and Postgres: a Valkey outage does not cancel a run whose database lease holds, and
 * a holder that lost its database lease to a force-release gives its Valkey lease back while its work is still stuck,
 * so another node runs the job at once instead of when the stuck work returns.
 */
class ValkeyFilterIT {

    private static final long TTL_MS = 2000;

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(ValkeyFilterIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    private static JvmProcess holder(JobCoordinator.Mode mode, String job, long ttlMs, long workMs, String behaviour) {
        return JvmProcess.start(
                HolderWorker.class,
                mode.name(),
                servers.valkey.address(),
                servers.db.jdbcUrl(),
                servers.db.username(),
                servers.passwordArg(),
                job,
                Long.toString(ttlMs),
                Long.toString(workMs),
                behaviour);
    }

    private static String[] awaitStart(JvmProcess holder) {
        return holder.awaitStdoutLine(l -> l.startsWith("START "), Timing.scaled(Duration.ofSeconds(30)))
                .split(" ");
    }

    /** Another node: this JVM's own Tenure, on the same servers and mode. */
    private static Tenure node(JobCoordinator.Mode mode) {
        return Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofMillis(TTL_MS)))
                .valkey(ValkeyConfig.standalone(servers.valkey.address())
                        .requestTimeout(Duration.ofMillis(300))
                        .build())
                .mode(mode)
                .build();
    }

    /** Tries the job every 100 ms until a run is EXECUTED or {@code bound} passes; the ms it took, or -1. */
    private static long runsWithin(Tenure node, String job, Duration bound, long from) throws InterruptedException {
        long deadline = System.currentTimeMillis() + bound.toMillis();
        for (int i = 0; System.currentTimeMillis() < deadline; i++) {
            RunOutcome<Object> o = node.coordinator().run(job, "next-" + i, RunPolicy.skipFire(), ctx -> null);
            if (o.status() == RunOutcome.Status.EXECUTED) {
                return System.currentTimeMillis() - from;
            }
            Thread.sleep(100);
        }
        return -1;
    }

    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY_WITH_DATABASE_FALLBACK", "VALKEY"})
    void valkeyFrozenMidRun_theRunIsNotCancelled_andCompletesUnderItsDatabaseLease(JobCoordinator.Mode mode)
            throws Exception {
        String job = "outage-" + mode.name().toLowerCase().replace('_', '-');
        long workMs = 3 * TTL_MS; // the Valkey lease runs out locally one TTL after the freeze
        try (JvmProcess holder = holder(mode, job, TTL_MS, workMs, "careful")) {
            awaitStart(holder);
            servers.valkey.pause();
            long pausedAt = System.currentTimeMillis();
            String outcome;
            try {
                outcome = holder.awaitStdoutLine(l -> l.startsWith("OUTCOME "), Timing.scaled(Duration.ofSeconds(40)));
            } finally {
                servers.valkey.resume();
            }
            System.out.printf(
                    "%s: Valkey frozen (SIGSTOP) at the start of a %d ms run with TTL %d ms; it ended %d ms later: %s%s%n",
                    mode,
                    workMs,
                    TTL_MS,
                    Long.parseLong(outcome.split(" ")[3]) - pausedAt,
                    outcome,
                    holder.stdoutLines().stream()
                            .filter(l -> l.startsWith("CANCELLED"))
                            .findFirst()
                            .map(l -> " (" + l + ")")
                            .orElse(""));
            assertThat(holder.stdoutLines()).as("the holder's lines").noneMatch(l -> l.startsWith("CANCELLED"));
            assertThat(outcome).startsWith("OUTCOME EXECUTED ");
        }
        assertThat(servers.count("SELECT count(*) FROM business_ledger WHERE fire_key = '" + job + "'"))
                .isEqualTo(1);
        assertThat(servers.one("SELECT status FROM tenure.job_runs WHERE job_key = '" + job + "'"))
                .isEqualTo("COMPLETED");
    }

    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY_WITH_DATABASE_FALLBACK", "VALKEY"})
    void stuckHolderForceReleasedInTheDatabaseOnly_givesItsValkeyLeaseBack_anotherNodeRunsWithinATtl(
            JobCoordinator.Mode mode) throws Exception {
        String job = "stuck-" + mode.name().toLowerCase().replace('_', '-');
        try (JvmProcess holder = holder(mode, job, TTL_MS, 120_000, "stuck");
                Tenure node = node(mode)) {
            long epoch = Long.parseLong(awaitStart(holder)[1]);
            assertThat(node.coordinator()
                            .run(job, "refused", RunPolicy.skipFire(), ctx -> null)
                            .status())
                    .as("while the holder holds it")
                    .isEqualTo(RunOutcome.Status.SKIPPED_HELD_ELSEWHERE);
            // a script with the database alone, as an operator without Valkey access would run it
            TenureAdmin.ForceRelease r =
                    TenureAdmin.create(servers.db.dataSource()).forceRelease(job, "stuck holder", "test");
            long releasedAt = System.currentTimeMillis();
            assertThat(r.oldEpoch()).isEqualTo(epoch);
            Duration bound = Timing.scaled(Duration.ofMillis(TTL_MS + 2000));
            long took = runsWithin(node, job, bound, releasedAt);
            System.out.printf(
                    "%s: force-released in the database alone; another node ran the job %d ms later (bound %d ms; "
                            + "the holder's work is stuck for 120 s)%n",
                    mode, took, bound.toMillis());
            assertThat(took)
                    .as("ms from the force-release to a run on another node")
                    .isBetween(0L, bound.toMillis());
            assertThat(holder.isAlive())
                    .as("the holder is still stuck in its work")
                    .isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY_WITH_DATABASE_FALLBACK", "VALKEY"})
    void stuckHolderForceReleasedWithValkey_itsValkeyLeaseIsDeleted_anotherNodeRunsAtOnce(JobCoordinator.Mode mode)
            throws Exception {
        String job = "evicted-" + mode.name().toLowerCase().replace('_', '-');
        long ttlMs = 30_000; // renewed every 10 s: only the deletion can free the job sooner than that
        try (JvmProcess holder = holder(mode, job, ttlMs, 120_000, "stuck");
                Tenure node = node(mode)) {
            long epoch = Long.parseLong(awaitStart(holder)[1]);
            String leaseKey = "{tenure:" + job + "}:lease";
            assertThat(servers.valkey.command("EXISTS", leaseKey)).isEqualTo(1L);
            // the one path of the console, the CLI and the actuator endpoint
            TenureAdmin admin = TenureAdmin.create(
                    servers.db.dataSource(), "tenure", node.valkeyEviction().orElseThrow());
            TenureAdmin.ForceRelease r = admin.forceRelease(job, "stuck holder", "test");
            long releasedAt = System.currentTimeMillis();
            assertThat(r.oldEpoch()).isEqualTo(epoch);
            assertThat(servers.valkey.command("EXISTS", leaseKey))
                    .as("the holder's Valkey lease after the force-release")
                    .isEqualTo(0L);
            Duration bound = Timing.scaled(Duration.ofSeconds(2));
            long took = runsWithin(node, job, bound, releasedAt);
            System.out.printf(
                    "%s: force-released with Valkey (%s); another node ran the job %d ms later (bound %d ms; the "
                            + "holder renews every 10 s and its work is stuck for 120 s)%n",
                    mode, r.valkeyLease(), took, bound.toMillis());
            assertThat(r.valkeyLease()).isEqualTo(TenureAdmin.ValkeyLease.DELETED);
            assertThat(took)
                    .as("ms from the force-release to a run on another node")
                    .isBetween(0L, bound.toMillis());
            assertThat(holder.isAlive())
                    .as("the holder is still stuck in its work")
                    .isTrue();
        }
    }
}
