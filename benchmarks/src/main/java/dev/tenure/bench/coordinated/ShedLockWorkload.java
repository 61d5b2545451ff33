package dev.tenure.bench.coordinated;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's JDBC provider ({@code JdbcTemplateLockProvider}, {@code usingDbTime()}, library defaults otherwise): each
 * thread takes the next lock name of its node's walk over {@code jobs} names ({@link Node#jobIndex}, as Tenure's threads),
 * {@code lock(name, lockAtMostFor 30 s)}, inserts the business row (autocommit), {@code unlock()}. A name locked by
 * another node is skipped (ShedLock never waits). No fencing token, no record of which fire ran.
 */
final class ShedLockWorkload implements Node.Workload {

    private final Node n;
    private JdbcTemplateLockProvider provider;

    ShedLockWorkload(Node n) {
        this.n = n;
    }

    @Override
    public void prepare() throws Exception {
        provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(n.ds))
                .withTableName("shedlock")
                .usingDbTime()
                .build());
        for (int i = 0; i < 20; i++) {
            if (!pair("prime-" + n.node, "p" + i)) {
                throw new IllegalStateException("priming lock of node " + n.node + " was refused");
            }
        }
    }

    private boolean pair(String name, String fire) throws Exception {
        Optional<SimpleLock> lock =
                provider.lock(new LockConfiguration(Instant.now(), name, Duration.ofSeconds(30), Duration.ZERO));
        if (lock.isEmpty()) {
            return false;
        }
        try (Connection c = n.ds.getConnection();
                PreparedStatement ps = c.prepareStatement(n.insertSql())) {
            ps.setString(1, name);
            ps.setString(2, fire);
            ps.setInt(3, n.node);
            ps.executeUpdate();
        } finally {
            lock.get().unlock();
        }
        return true;
    }

    @Override
    public void run(Tally tally) throws Exception {
        AtomicLong seq = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < n.threads; t++) {
            threads.add(new Thread(
                    () -> {
                        while (tally.running()) {
                            long i = seq.getAndIncrement();
                            long start = System.nanoTime();
                            try {
                                if (pair("job-" + n.jobIndex(i), "n" + n.node + "-r" + i / n.jobs)) {
                                    tally.unit(start, System.nanoTime());
                                } else {
                                    tally.held.increment();
                                }
                            } catch (Exception e) {
                                tally.error(e.toString());
                            }
                        }
                    },
                    "shedlock-" + t));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
    }

    @Override
    public void close() {}
}
