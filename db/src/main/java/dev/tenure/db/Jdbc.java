package dev.tenure.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs ledger work on one pooled connection: single statements committed on their own (in autocommit, or with an
 * explicit commit when the pool hands out connections with autocommit off), short transactions with an explicit commit. Every failure comes out as a {@link dev.tenure.db.LedgerUnavailableException}. Thread-safe.
 */
final class Jdbc {

    /** Work on a connection. */
    @FunctionalInterface
    public interface Work<T> {
        T apply(Connection c) throws SQLException;
    }

    private final DataSource dataSource;
    private final int queryTimeoutSeconds;
    /**
     * The isolation level of the pool's connections, read from the first one (-1 until then). Tenure's own work runs at
     * READ COMMITTED whatever it is: a claim reads a fire's completion again, after it has locked the job's row, with a
     * snapshot of its own (see {@link Sql}), which only READ COMMITTED gives. A pool at another level has each
     * connection set to READ COMMITTED for Tenure's work and set back after.
     */
    private volatile int poolIsolation = -1;

    /** {@code queryTimeout} is a client-side backstop per statement (zero = none); rounded up to whole seconds. */
    public Jdbc(DataSource dataSource, Duration queryTimeout) {
        this.dataSource = dataSource;
        this.queryTimeoutSeconds = (int) Math.min(Integer.MAX_VALUE, (queryTimeout.toMillis() + 999) / 1000);
    }

    /**
     * One statement (or read), committed whatever the pool's autocommit default is: a pool that hands out
     * {@code autoCommit=false} connections would otherwise roll the statement back on close while Tenure reports
     * success. {@code writes}: whether a broken connection leaves the outcome unknown.
     */
    public <T> T run(String op, String key, boolean writes, Work<T> work) {
        return onConnection(op, key, writes, c -> c.getAutoCommit() ? work.apply(c) : committed(c, work));
    }

    /** A short transaction: committed if {@code work} returns, rolled back if it throws; autocommit restored after. */
    public <T> T inTransaction(String op, String key, Work<T> work) {
        return onConnection(op, key, true, c -> {
            boolean auto = c.getAutoCommit();
            if (auto) {
                c.setAutoCommit(false);
            }
            try {
                return committed(c, work);
            } finally {
                if (auto) {
                    resetQuietly(c);
                }
            }
        });
    }

    private <T> T onConnection(String op, String key, boolean writes, Work<T> work) {
        Connection c = connect(op, key);
        try (c) {
            int level = poolIsolation;
            if (level == -1) {
                level = c.getTransactionIsolation();
                poolIsolation = level;
            }
            if (level == Connection.TRANSACTION_READ_COMMITTED) {
                return work.apply(c);
            }
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try {
                return work.apply(c);
            } finally {
                restoreQuietly(c, level);
            }
        } catch (SQLException e) {
            throw Faults.failed(op, key, e, writes);
        } catch (RuntimeException e) {
            if (e instanceof dev.tenure.TenureException) {
                throw e;
            }
            throw Faults.unexpected(op, key, e);
        }
    }

    private static <T> T committed(Connection c, Work<T> work) throws SQLException {
        try {
            T result = work.apply(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(c);
            throw e;
        }
    }

    /** Prepares {@code sql} with the backstop query timeout. */
    public PreparedStatement prepare(Connection c, String sql) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        if (queryTimeoutSeconds > 0) {
            ps.setQueryTimeout(queryTimeoutSeconds);
        }
        return ps;
    }

    private Connection connect(String op, String key) {
        try {
            return dataSource.getConnection();
        } catch (SQLException e) {
            throw Faults.noConnection(op, key, e);
        }
    }

    static Duration between(@Nullable Instant from, @Nullable Instant to) {
        if (from == null || to == null || !to.isAfter(from)) {
            return Duration.ZERO;
        }
        return Duration.between(from, to);
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the server rolls back on its own
        }
    }

    private static void restoreQuietly(Connection c, int level) {
        try {
            c.setTransactionIsolation(level);
        } catch (SQLException ignored) {
            // the pool discards broken connections
        }
    }

    private static void resetQuietly(Connection c) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException ignored) {
            // the pool discards broken connections
        }
    }
}
