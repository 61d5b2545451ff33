package dev.tenure.db;

import dev.tenure.StaleOwnerException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * One claimant of the mutual-exclusion test: claims one job key in a loop, and for every claim it won appends a
 * history line {@code H owner epoch claimedAtMicros leaseExpiresAtMicros releasedAtMicros} (database-clock times;
 * released = -1 when it let the lease expire instead). While holding, it makes one fenced read-modify-write of a
 * shared counter. Used by threads of the test JVM and by {@link ClaimLoopMain} in child JVMs.
 */
final class ClaimLoop {

    static final String COUNTER_DDL = "CREATE TABLE IF NOT EXISTS public.fenced_counter "
            + "(id int PRIMARY KEY, n bigint NOT NULL, last_epoch bigint NOT NULL); "
            + "INSERT INTO public.fenced_counter VALUES (1, 0, 0) ON CONFLICT DO NOTHING";

    final AtomicLong fencedCommits = new AtomicLong();
    final AtomicLong staleRejections = new AtomicLong();
    final AtomicLong backwardsWrites = new AtomicLong();
    final AtomicLong faults = new AtomicLong();
    final AtomicLong attempts = new AtomicLong();
    final java.util.Map<String, Integer> faultKinds = new java.util.concurrent.ConcurrentHashMap<>();

    private final JdbcLeaseStore leases;
    private final JdbcRunLedger runs;
    private final DataSource business;
    private final String key;

    ClaimLoop(JdbcBackend.Siblings stores, DataSource business, String key) {
        this.leases = stores.leases();
        this.runs = stores.runs();
        this.business = business;
        this.key = key;
    }

    /** Runs until {@code deadlineNanos} (System.nanoTime), appending history lines to {@code out}. */
    void run(String ownerPrefix, long deadlineNanos, List<String> out) {
        long n = 0;
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        while (System.nanoTime() < deadlineNanos) {
            String owner = ownerPrefix + "-" + (n++);
            boolean abandon = rnd.nextInt(10) == 0;
            Duration ttl = abandon ? Duration.ofMillis(150) : Duration.ofSeconds(1);
            attempts.incrementAndGet();
            ClaimResult r;
            try {
                r = leases.claim(key, owner, ttl);
            } catch (LedgerUnavailableException e) {
                fault(e);
                continue;
            }
            if (r instanceof ClaimResult.Held h) {
                long pause = Math.min(h.remaining().toNanos(), rnd.nextLong(200_000, 2_000_000));
                LockSupport.parkNanos(Math.max(100_000, pause));
                continue;
            }
            ClaimResult.Claimed c = (ClaimResult.Claimed) r;
            fencedIncrement(c.epoch(), owner);
            LockSupport.parkNanos(rnd.nextLong(0, 2_000_000));
            long released = -1;
            if (!abandon) {
                try {
                    Optional<Instant> at = leases.releaseEpoch(key, c.epoch(), owner);
                    released = at.map(ClaimLoop::micros).orElse(-1L);
                } catch (LedgerUnavailableException e) {
                    fault(e);
                }
            }
            out.add("H " + owner + " " + c.epoch() + " " + micros(c.claimedAt()) + " " + micros(c.leaseExpiresAt())
                    + " " + released);
        }
    }

    private void fencedIncrement(long epoch, String owner) {
        try (Connection tx = business.getConnection()) {
            tx.setAutoCommit(false);
            try {
                runs.fence(tx, key, epoch, owner);
                try (PreparedStatement ps = tx.prepareStatement(
                        "UPDATE public.fenced_counter SET n = n + 1, last_epoch = ? WHERE id = 1 AND last_epoch <= ?")) {
                    ps.setLong(1, epoch);
                    ps.setLong(2, epoch);
                    if (ps.executeUpdate() != 1) {
                        backwardsWrites.incrementAndGet();
                    }
                }
                tx.commit();
                fencedCommits.incrementAndGet();
            } catch (StaleOwnerException e) {
                tx.rollback();
                staleRejections.incrementAndGet();
            }
        } catch (SQLException | LedgerUnavailableException e) {
            fault(e);
        }
    }

    private void fault(Exception e) {
        faults.incrementAndGet();
        String kind = e instanceof LedgerUnavailableException u
                ? "sqlstate " + u.sqlState()
                : e.getClass().getSimpleName();
        faultKinds.merge(
                kind + ": "
                        + e.getMessage()
                                .substring(0, Math.min(90, e.getMessage().length())),
                1,
                Integer::sum);
    }

    static long micros(Instant t) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, t);
    }

    /** A parsed history line. */
    record Interval(String owner, long epoch, long claimedAt, long expiresAt, long releasedAt) {
        static Interval parse(String line) {
            String[] p = line.split(" ");
            return new Interval(
                    p[1], Long.parseLong(p[2]), Long.parseLong(p[3]), Long.parseLong(p[4]), Long.parseLong(p[5]));
        }

        /** End of the time this claimant could believe it held the key: release or expiry, whichever came first. */
        long end() {
            return releasedAt < 0 ? expiresAt : Math.min(releasedAt, expiresAt);
        }
    }
}
