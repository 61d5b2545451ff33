package dev.tenure.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of {@link ClaimMutualExclusionIT}: {@code <jdbcUrl> <user|-> <password|-> <key> <seconds> <threads> <name>}.
 * Prints {@code READY}, then one history line per won claim, then {@code DONE fencedCommits stale backwards faults attempts}.
 */
public final class ClaimLoopMain {

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = "-".equals(args[1]) ? null : args[1];
        String password = "-".equals(args[2]) ? null : args[2];
        String key = args[3];
        long seconds = Long.parseLong(args[4]);
        int threads = Integer.parseInt(args[5]);
        String name = args[6];
        try (HikariDataSource pool = TenureDataSources.hikari(PoolConfig.builder(url)
                .user(user)
                .password(password)
                .maxPoolSize(Math.max(2, threads))
                .statementTimeout(Duration.ofSeconds(5))
                .build())) {
            JdbcBackend.Siblings stores = Fixture.open(pool, Fixture.NO_LISTEN);
            ClaimLoop loop = new ClaimLoop(stores, pool, key);
            List<String> history = Collections.synchronizedList(new ArrayList<>());
            System.out.println("READY");
            System.out.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds); // unscaled: how long it competes
            ExecutorService ex = Executors.newFixedThreadPool(threads);
            for (int t = 0; t < threads; t++) {
                String prefix = name + "t" + t;
                ex.execute(() -> loop.run(prefix, deadline, history));
            }
            ex.shutdown();
            ex.awaitTermination(seconds * 1000L + Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS);
            StringBuilder sb = new StringBuilder();
            synchronized (history) {
                history.forEach(h -> sb.append(h).append('\n'));
            }
            System.out.print(sb);
            System.out.println("FAULTS " + loop.faultKinds);
            System.out.println("DONE " + loop.fencedCommits.get() + " " + loop.staleRejections.get() + " "
                    + loop.backwardsWrites.get() + " " + loop.faults.get() + " " + loop.attempts.get());
            System.out.flush();
        }
    }
}
