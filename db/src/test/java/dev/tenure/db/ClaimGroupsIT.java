package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.DatabaseConfig;
import dev.tenure.spi.RunLedger.FireClaim;
import dev.tenure.spi.RunLedger.FireStart;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Claims of several jobs in one statement ({@link ClaimGroups}, {@link Sql#claimAndStartMany}): each claim gets the answer
 * the one-claim statement gives it, a group that cannot lock one of its rows changes nothing and has each claim made
 * alone, groups lock their rows in one order, and concurrent claims of one process share statements.
 */
class ClaimGroupsIT {

    private static final Duration TTL = Duration.ofMinutes(5);

    private static Fixture fx;
    private static Jdbc jdbc;
    private static Sql sql;
    private static LeaseRows leases;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(ClaimGroupsIT.class);
        jdbc = new Jdbc(fx.pool, DatabaseConfig.DEFAULT_QUERY_TIMEOUT);
        sql = new Sql(TenureSchema.quoted(TenureSchema.DEFAULT_SCHEMA));
        leases = new LeaseRows(
                jdbc,
                sql,
                TenureSchema.DEFAULT_SCHEMA,
                DatabaseConfig.DEFAULT_CLAIM_LOCK_TIMEOUT,
                DatabaseConfig.DEFAULT_RENEW_LOCK_TIMEOUT,
                "node-a");
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static RunRows rows(int inFlight, int perStatement) {
        return new RunRows(jdbc, sql, leases, inFlight, perStatement);
    }

    private static RunRows.Claim claim(String job, String fire, String owner, Duration ttl) {
        return claim(job, fire, owner, ttl, LeaseRows.quickLockTimeout("2000"));
    }

    /** A claim as a first attempt carries it into a group: with the quick lock timeout, unless the test says. */
    private static RunRows.Claim claim(String job, String fire, String owner, Duration ttl, String lockTimeout) {
        return new RunRows.Claim(job, fire, owner, ttl, lockTimeout, UUID.randomUUID(), "trace-" + owner);
    }

    @Test
    void oneStatement_answersEachClaimAsItsOwnStatementWould() {
        RunRows rows = rows(1, 16);
        String run = UUID.randomUUID().toString().substring(0, 8);
        String free = "free-" + run;
        String done = "done-" + run;
        String held = "held-" + run;
        String fresh = "fresh-" + run; // no job row yet
        String expired = "expired-" + run;
        // a completed fire, a job held by a live lease, a job whose lease expired with a run still RUNNING
        FireClaim.Started d = (FireClaim.Started) rows.claimAndStart(done, "f1", "o-done", TTL, "2000", null);
        completeAndRelease(done, d, "o-done");
        FireClaim.Started h = (FireClaim.Started) rows.claimAndStart(held, "f0", "o-held", TTL, "2000", null);
        FireClaim.Started e =
                (FireClaim.Started) rows.claimAndStart(expired, "f0", "o-gone", Duration.ofMillis(1), "2000", null);
        rows.claimAndStart(free, "f0", "o-free0", Duration.ofMillis(1), "2000", null);

        List<RunRows.Claim> claims = List.of(
                claim(free, "f1", "o-free", TTL),
                claim(done, "f1", "o-late", TTL),
                claim(held, "f1", "o-other", TTL),
                claim(fresh, "f1", "o-fresh", TTL),
                claim(expired, "f1", "o-next", TTL));
        List<ClaimGroups.Answer> answers = rows.sendGroup(claims);

        assertThat(answers).hasSize(5);
        FireClaim.Started s0 = started(answers.get(0));
        assertThat(s0.runId()).isEqualTo(claims.get(0).runId().toString());
        assertThat(run(free, "f1"))
                .containsEntry("status", "RUNNING")
                .containsEntry("owner", "o-free")
                .containsEntry("epoch", Long.toString(s0.epoch()))
                .containsEntry("node", "node-a")
                .containsEntry("trace_id", "trace-o-free");
        assertThat(job(free))
                .containsEntry("owner", "o-free")
                .containsEntry("status", "RUNNING")
                .containsEntry("fencing_token", Long.toString(s0.epoch()))
                .containsEntry("current_run_id", s0.runId());
        // the free job's older run, whose lease had expired, is ABANDONED by the new epoch
        assertThat(run(free, "f0")).containsEntry("status", "ABANDONED");

        FireStart.AlreadyDone a1 = (FireStart.AlreadyDone) value(answers.get(1));
        assertThat(a1.runId()).isEqualTo(d.runId());
        assertThat(a1.owner()).isEqualTo("o-done");
        assertThat(a1.epoch()).isEqualTo(d.epoch());
        assertThat(a1.missed()).isFalse();

        FireClaim.Held h2 = (FireClaim.Held) value(answers.get(2));
        assertThat(h2.owner()).isEqualTo("o-held");
        assertThat(h2.epoch()).isEqualTo(h.epoch());
        assertThat(h2.remaining()).isPositive();
        assertThat(run(held, "f1")).isEmpty();

        assertThat(value(answers.get(3))).isSameAs(RunRows.NO_ROW);
        assertThat(job(fresh)).isEmpty();

        FireClaim.Started s4 = started(answers.get(4));
        assertThat(s4.epoch()).isGreaterThan(e.epoch());
        assertThat(run(expired, "f0")).containsEntry("status", "ABANDONED");
        assertThat(run(expired, "f1")).containsEntry("status", "RUNNING").containsEntry("owner", "o-next");
    }

    @Test
    void aRowLockedPastTheQuickTimeout_failsTheWholeGroup_andEveryClaimIsMadeAlone() throws Exception {
        RunRows rows = rows(1, 16);
        String run = UUID.randomUUID().toString().substring(0, 8);
        String locked = "locked-" + run;
        String other = "other-" + run;
        FireClaim.Started l =
                (FireClaim.Started) rows.claimAndStart(locked, "f0", "o-l", Duration.ofMillis(1), "2000", null);
        FireClaim.Started o =
                (FireClaim.Started) rows.claimAndStart(other, "f0", "o-o", Duration.ofMillis(1), "2000", null);
        try (Connection c = fx.pool.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT 1 FROM tenure.job_execution WHERE job_key = ? FOR KEY SHARE")) {
                ps.setString(1, locked);
                ps.executeQuery().close();
            }
            // the group locks the locked job's row first (job key order) and waits for it: the quick lock timeout
            List<ClaimGroups.Answer> answers =
                    rows.sendGroup(List.of(claim(other, "f1", "o-o2", TTL), claim(locked, "f1", "o-l2", TTL)));
            assertThat(answers).allSatisfy(a -> assertThat(a).isInstanceOf(ClaimGroups.Alone.class));
            c.rollback();
        }
        // nothing of the group was written
        assertThat(job(other))
                .containsEntry("fencing_token", Long.toString(o.epoch()))
                .containsEntry("owner", "o-o");
        assertThat(job(locked)).containsEntry("fencing_token", Long.toString(l.epoch()));
        assertThat(run(other, "f1")).isEmpty();
        // made alone, each claim goes through
        assertThat(rows.claimAndStart(other, "f1", "o-o2", TTL, "2000", null)).isInstanceOf(FireClaim.Started.class);
        assertThat(rows.claimAndStart(locked, "f1", "o-l2", TTL, "2000", null)).isInstanceOf(FireClaim.Started.class);
    }

    @Test
    void groupsOfTheSameJobsInOppositeOrders_neverDeadlock() throws Exception {
        RunRows rows = rows(1, 100);
        String run = UUID.randomUUID().toString().substring(0, 8);
        // enough rows that the statement finds its jobs through the key's index in the order of its requests, as in a
        // production table (a table of a few rows is scanned whole, in one order, whatever the requests' order)
        jdbc.run("test", "filler", true, c -> {
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO tenure.job_execution (job_key) SELECT 'filler-" + run
                        + "-' || g FROM generate_series(1, 20000) g");
                return st.executeUpdate("ANALYZE tenure.job_execution");
            }
        });
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            jobs.add("order-" + run + "-" + i);
            rows.claimAndStart(jobs.get(i), "f", "o", Duration.ofMillis(1), "2000", null);
        }
        int rounds = 40;
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> alone = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                alone.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    int refused = 0;
                    for (int r = 0; r < rounds; r++) {
                        List<String> order = new ArrayList<>(jobs);
                        Collections.shuffle(order, random);
                        List<RunRows.Claim> claims = new ArrayList<>();
                        for (String j : order) {
                            // a 1 ms lease: every claim finds the row free and locks it; a lock timeout far above
                            // Postgres's deadlock_timeout (1 s), so that only a deadlock (a cycle of waits) ends a
                            // statement, not a wait made long by a busy machine
                            claims.add(claim(j, "f-" + seed + "-" + r, "o-" + seed, Duration.ofMillis(1), "60000"));
                        }
                        for (ClaimGroups.Answer a : rows.sendGroup(claims)) {
                            if (a instanceof ClaimGroups.Alone) {
                                refused++;
                            }
                        }
                    }
                    return refused;
                }));
            }
            for (Future<Integer> f : alone) {
                assertThat(f.get(Timing.scaledMillis(120_000), TimeUnit.MILLISECONDS))
                        .as("claims of groups that hit a deadlock")
                        .isZero();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentClaimsOfOneProcess_shareStatements_andEachStartsItsFireOnce() throws Exception {
        RunRows rows = rows(1, 16);
        String run = UUID.randomUUID().toString().substring(0, 8);
        int threads = 16;
        int perThread = 40;
        Map<String, FireClaim.Started> starts = new ConcurrentHashMap<>();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        // two threads per job, with the same fires: one starts each fire, the other finds it held
                        String job = "many-" + run + "-" + (thread / 2) + "-" + i;
                        String owner = "o-" + thread + "-" + i;
                        FireClaim c = rows.claimAndStart(job, "fire", owner, TTL, "2000", null);
                        if (c instanceof FireClaim.Started s) {
                            assertThat(starts.putIfAbsent(job, s))
                                    .as("second start of " + job)
                                    .isNull();
                        } else {
                            assertThat(c).isInstanceOf(FireClaim.Held.class);
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(Timing.scaledMillis(120_000), TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        int jobs = threads / 2 * perThread;
        assertThat(starts).hasSize(jobs);
        try (Connection c = fx.pool.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*), count(DISTINCT run_id) FROM tenure.job_runs"
                        + " WHERE job_key LIKE 'many-" + run + "-%' AND status = 'RUNNING'")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(jobs);
            assertThat(rs.getInt(2)).isEqualTo(jobs);
        }
        for (Map.Entry<String, FireClaim.Started> e : starts.entrySet()) {
            assertThat(run(e.getKey(), "fire"))
                    .containsEntry("run_id", e.getValue().runId())
                    .containsEntry("epoch", Long.toString(e.getValue().epoch()));
        }
        long[] sent = rows.claimStatements();
        System.out.printf("%d first claims in %d statements%n", sent[1], sent[0]);
        assertThat(sent[1]).isEqualTo((long) threads * perThread);
        assertThat(sent[0]).as("statements for %d claims", sent[1]).isLessThan(sent[1] * 3 / 4);
    }

    private static FireClaim.Started started(ClaimGroups.Answer a) {
        return (FireClaim.Started) value(a);
    }

    private static Object value(ClaimGroups.Answer a) {
        assertThat(a).isInstanceOf(ClaimGroups.Value.class);
        return ((ClaimGroups.Value) a).value();
    }

    private static void completeAndRelease(String job, FireClaim.Started s, String owner) {
        rows(1, 1).finish(job, s.epoch(), owner, UUID.fromString(s.runId()), RunStatus.COMPLETED, null, false, "2000");
    }

    private static Map<String, String> run(String job, String fire) {
        return row(
                "SELECT run_id, status, owner, epoch, node, trace_id FROM tenure.job_runs"
                        + " WHERE job_key = ? AND fire_key = ?",
                job,
                fire);
    }

    private static Map<String, String> job(String job) {
        return row(
                "SELECT owner, status, fencing_token, current_run_id FROM tenure.job_execution WHERE job_key = ?", job);
    }

    private static Map<String, String> row(String query, String... args) {
        try (Connection c = fx.pool.getConnection();
                PreparedStatement ps = c.prepareStatement(query)) {
            for (int i = 0; i < args.length; i++) {
                ps.setString(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                Map<String, String> m = new java.util.HashMap<>();
                if (rs.next()) {
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        m.put(rs.getMetaData().getColumnName(i), rs.getString(i));
                    }
                }
                return m;
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
