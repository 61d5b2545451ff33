package dev.tenure.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark program (not a test): claims/s, fence checks/s and renewals/s of the ledger with N threads on distinct
 * keys, with p50/p99 latency. Runs against a fresh database on the test kit's Postgres (TENURE_PG_URL, else
 * 127.0.0.1:5432, else embedded), dropped afterwards. Run it with {@code db/bench.sh [threads] [seconds]}.
 *
 * <ul>
 *   <li>claim: a claim+release cycle per iteration (the key is free each time); claim and release timed apart.</li>
 *   <li>fence check: {@code BEGIN; fence (SELECT ... FOR KEY SHARE); COMMIT} on a pooled connection, as a business
 *   transaction would do it, minus its own writes; the fence statement and the whole transaction timed apart.</li>
 *   <li>renew: the watchdog's renewal of a held key (one UPDATE).</li>
 * </ul>
 */
public final class LedgerBenchmark {

    private interface Op {
        /** Runs one iteration; records its timings into {@code lat}. */
        void run(int thread, long[][] lat, int i) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        try (PostgresDatabase db = PostgresDatabases.create("bench");
                HikariDataSource pool = TenureDataSources.hikari(PoolConfig.builder(db.jdbcUrl())
                        .user(db.username())
                        .password(db.password())
                        .maxPoolSize(threads)
                        .connectionTimeout(Duration.ofSeconds(5))
                        .build())) {
            TenureSchema.migrate(pool);
            JdbcBackend.Siblings stores = Fixture.open(pool, Fixture.NO_LISTEN);
            JdbcLeaseStore leases = stores.leases();
            JdbcRunLedger runs = stores.runs();
            String version = String.join("", query(pool, "SHOW server_version"));
            System.out.printf(
                    Locale.ROOT,
                    "LedgerBenchmark: %d threads on distinct keys, %d s per operation (after 2 s warm-up), "
                            + "pool of %d, Postgres %s (%s), %d cores, load average %.1f at start%n%n",
                    threads,
                    seconds,
                    threads,
                    version,
                    db.source(),
                    Runtime.getRuntime().availableProcessors(),
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            long[] epochs = new long[threads];
            List<String[]> rows = new ArrayList<>();

            rows.addAll(measure(
                    "claim (claim+release cycle)", new String[] {"claim", "release"}, threads, seconds, (t, lat, i) -> {
                        long s = System.nanoTime();
                        String owner = "owner-" + t + "-" + i;
                        ClaimResult.Claimed c =
                                (ClaimResult.Claimed) leases.claim("bench-" + t, owner, Duration.ofSeconds(30));
                        long m = System.nanoTime();
                        leases.releaseEpoch("bench-" + t, c.epoch(), owner);
                        long e = System.nanoTime();
                        lat[0][i] = m - s;
                        lat[1][i] = e - m;
                    }));

            for (int t = 0; t < threads; t++) {
                epochs[t] = ((ClaimResult.Claimed) leases.claim("bench-" + t, "holder-" + t, Duration.ofMinutes(10)))
                        .epoch();
            }
            rows.addAll(measure(
                    "fence check",
                    new String[] {"fence statement", "BEGIN; fence; COMMIT"},
                    threads,
                    seconds,
                    (t, lat, i) -> {
                        long s = System.nanoTime();
                        try (Connection tx = pool.getConnection()) {
                            tx.setAutoCommit(false);
                            long f = System.nanoTime();
                            runs.fence(tx, "bench-" + t, epochs[t], "holder-" + t);
                            lat[0][i] = System.nanoTime() - f;
                            tx.commit();
                        }
                        lat[1][i] = System.nanoTime() - s;
                    }));
            rows.addAll(measure("renew", new String[] {"renew"}, threads, seconds, (t, lat, i) -> {
                long s = System.nanoTime();
                if (!leases.renewEpoch("bench-" + t, epochs[t], "holder-" + t, Duration.ofMinutes(10))) {
                    throw new IllegalStateException("renewal refused");
                }
                lat[0][i] = System.nanoTime() - s;
            }));

            System.out.printf(
                    Locale.ROOT, "%-30s %-22s %10s %9s %9s%n", "operation", "timed part", "ops/s", "p50 ms", "p99 ms");
            for (String[] r : rows) {
                System.out.printf(Locale.ROOT, "%-30s %-22s %10s %9s %9s%n", (Object[]) r);
            }
        }
    }

    private static List<String[]> measure(String name, String[] parts, int threads, int seconds, Op op)
            throws Exception {
        run(threads, 2, op); // warm-up (JIT, prepared statements)
        Result r = run(threads, seconds, op);
        List<String[]> rows = new ArrayList<>();
        for (int p = 0; p < parts.length; p++) {
            long[] all = r.latencies(p);
            Arrays.sort(all);
            rows.add(new String[] {
                p == 0 ? name : "",
                parts[p],
                p == 0 ? String.format(Locale.ROOT, "%.0f", r.count / r.seconds) : "",
                ms(all, 0.50),
                ms(all, 0.99)
            });
        }
        return rows;
    }

    private record Result(long count, double seconds, long[][][] lat, int[] done) {
        long[] latencies(int part) {
            return Arrays.stream(lat)
                    .flatMapToLong(t -> {
                        int n = done[Arrays.asList(lat).indexOf(t)];
                        return Arrays.stream(t[part], 0, n);
                    })
                    .toArray();
        }
    }

    private static Result run(int threads, int seconds, Op op) throws Exception {
        int capacity = 2_000_000 / threads;
        long[][][] lat = new long[threads][2][capacity];
        int[] done = new int[threads];
        CountDownLatch go = new CountDownLatch(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds) + TimeUnit.MILLISECONDS.toNanos(100);
        Thread[] ts = new Thread[threads];
        Exception[] failure = new Exception[1];
        for (int t = 0; t < threads; t++) {
            int tt = t;
            ts[t] = new Thread(() -> {
                try {
                    go.await();
                    int i = 0;
                    while (System.nanoTime() < deadline && i < capacity) {
                        op.run(tt, lat[tt], i++);
                    }
                    done[tt] = i;
                } catch (Exception e) {
                    failure[0] = e;
                }
            });
            ts[t].start();
        }
        long started = System.nanoTime();
        go.countDown();
        for (Thread t : ts) {
            t.join();
        }
        double elapsed = (System.nanoTime() - started) / 1e9;
        if (failure[0] != null) {
            throw failure[0];
        }
        return new Result(Arrays.stream(done).sum(), elapsed, lat, done);
    }

    private static String ms(long[] sorted, double q) {
        if (sorted.length == 0) {
            return "-";
        }
        return String.format(
                Locale.ROOT, "%.2f", sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1e6);
    }

    private static List<String> query(HikariDataSource pool, String sql) throws Exception {
        try (var c = pool.getConnection();
                var s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        }
    }
}
