package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 1: 16 threads here and 3 child JVMs (4 threads each) claim one job key in a loop for 20 s. Every won
 * claim is recorded with database-clock times; the intervals [claimedAt, min(releasedAt, leaseExpiresAt)) must never
 * overlap, epochs must strictly increase in claim order, and fenced writes must never be lost or go backwards.
 */
class ClaimMutualExclusionIT {

    private static final int SECONDS = 20;
    private static final int LOCAL_THREADS = 16;
    private static final int CHILDREN = 3;
    private static final int CHILD_THREADS = 4;
    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(ClaimMutualExclusionIT.class);
        fx.execute(ClaimLoop.COUNTER_DDL);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void manyThreadsAndProcesses_claimOneKey_intervalsNeverOverlap_epochsStrictlyIncrease() throws Exception {
        String key = "mutex-job";
        List<JvmProcess> children = new ArrayList<>();
        List<AutoCloseable> closeLater = new ArrayList<>();
        try {
            for (int i = 0; i < CHILDREN; i++) {
                children.add(JvmProcess.start(
                        ClaimLoopMain.class,
                        fx.db.jdbcUrl(),
                        orDash(fx.db.username()),
                        orDash(fx.db.password()),
                        key,
                        Integer.toString(SECONDS),
                        Integer.toString(CHILD_THREADS),
                        "jvm" + i));
            }
            for (JvmProcess p : children) {
                p.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(60)));
            }
            List<String> history = Collections.synchronizedList(new ArrayList<>());
            // a connection per thread: the holder's fenced write and release must not queue behind 15 claimers
            HikariDataSource pool = fx.pool(Fixture.poolConfig(fx.db).maxPoolSize(LOCAL_THREADS));
            closeLater.add(pool);
            JdbcBackend.Siblings stores = Fixture.open(pool, Fixture.NO_LISTEN);
            closeLater.add(stores);
            ClaimLoop local = new ClaimLoop(stores, pool, key);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS); // unscaled: how long they compete
            ExecutorService ex = Executors.newFixedThreadPool(LOCAL_THREADS);
            for (int t = 0; t < LOCAL_THREADS; t++) {
                String prefix = "localt" + t;
                ex.execute(() -> local.run(prefix, deadline, history));
            }
            ex.shutdown();
            assertThat(ex.awaitTermination(SECONDS * 1000L + Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS))
                    .isTrue();

            long commits = local.fencedCommits.get();
            long stale = local.staleRejections.get();
            long backwards = local.backwardsWrites.get();
            long faults = local.faults.get();
            long attempts = local.attempts.get();
            List<String> all = new ArrayList<>(history);
            for (JvmProcess p : children) {
                String done = p.awaitStdoutLine(l -> l.startsWith("DONE "), Timing.scaled(Duration.ofSeconds(60)));
                String[] d = done.split(" ");
                commits += Long.parseLong(d[1]);
                stale += Long.parseLong(d[2]);
                backwards += Long.parseLong(d[3]);
                faults += Long.parseLong(d[4]);
                attempts += Long.parseLong(d[5]);
                p.stdoutLines().stream().filter(l -> l.startsWith("H ")).forEach(all::add);
                p.stdoutLines().stream().filter(l -> l.startsWith("FAULTS ")).forEach(System.out::println);
            }

            List<ClaimLoop.Interval> intervals =
                    new ArrayList<>(all.stream().map(ClaimLoop.Interval::parse).toList());
            intervals.sort(Comparator.comparingLong(ClaimLoop.Interval::claimedAt));
            int overlaps = 0;
            int nonIncreasing = 0;
            long minGapMicros = Long.MAX_VALUE;
            for (int i = 1; i < intervals.size(); i++) {
                ClaimLoop.Interval prev = intervals.get(i - 1);
                ClaimLoop.Interval next = intervals.get(i);
                if (next.claimedAt() < prev.end()) {
                    overlaps++;
                }
                if (next.epoch() <= prev.epoch()) {
                    nonIncreasing++;
                }
                minGapMicros = Math.min(minGapMicros, next.claimedAt() - prev.end());
            }
            Set<Long> epochs = new HashSet<>();
            intervals.forEach(iv -> epochs.add(iv.epoch()));
            Map<String, Integer> byProcess = new HashMap<>();
            intervals.forEach(iv -> byProcess.merge(iv.owner().replaceAll("t\\d+-\\d+$", ""), 1, Integer::sum));
            long expiredTakeovers =
                    intervals.stream().filter(iv -> iv.releasedAt() < 0).count();
            long counter = Long.parseLong(
                    fx.query("SELECT n FROM public.fenced_counter WHERE id = 1").get(0));
            long dbEpoch = Long.parseLong(
                    fx.query("SELECT fencing_token FROM tenure.job_execution WHERE job_key = '" + key + "'")
                            .get(0));

            System.out.printf(
                    "mutual exclusion: %d claims won (%d let expire), %d attempts, by process %s, epochs up to %d "
                            + "(db %d), overlaps %d, non-increasing epochs %d, min gap %d us, fenced commits %d "
                            + "(counter %d), stale rejections %d, backwards writes %d, faults %d%n",
                    intervals.size(),
                    expiredTakeovers,
                    attempts,
                    byProcess,
                    intervals.get(intervals.size() - 1).epoch(),
                    dbEpoch,
                    overlaps,
                    nonIncreasing,
                    minGapMicros,
                    commits,
                    counter,
                    stale,
                    backwards,
                    faults);

            System.out.println("faults in this JVM: " + local.faultKinds);
            assertThat(intervals).as("enough hand-overs to mean something").hasSizeGreaterThan(100);
            assertThat(byProcess).hasSize(1 + CHILDREN);
            assertThat(overlaps).as("overlapping holder intervals").isZero();
            assertThat(nonIncreasing)
                    .as("epochs not strictly increasing in claim order")
                    .isZero();
            assertThat(epochs).hasSize(intervals.size());
            assertThat(dbEpoch)
                    .isGreaterThanOrEqualTo(intervals.get(intervals.size() - 1).epoch());
            assertThat(backwards)
                    .as("fenced writes with an older epoch after a newer one")
                    .isZero();
            assertThat(counter).as("fenced increments lost").isEqualTo(commits);
        } finally {
            children.forEach(JvmProcess::close);
            for (AutoCloseable c : closeLater) {
                c.close();
            }
        }
    }

    private static String orDash(String s) {
        return s == null ? "-" : s;
    }
}
