package dev.tenure;


import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * {@link JobContext#completeInTransaction}: fence, work, complete and commit on one connection, or roll back. Joins
 * Spring's current transaction instead when spring-jdbc is present and one is active (Spring then commits).
 */
final class CompletingTransaction {

    private static final boolean SPRING = present("org.springframework.jdbc.datasource.DataSourceUtils")
            && present("org.springframework.transaction.support.TransactionSynchronizationManager");

    private CompletingTransaction() {
    }

    public static <T> T run(JobContext context, DataSource dataSource, TransactionWork<T> work) throws SQLException {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(work, "work");
        if (inSpringTransaction()) {
            return SpringTransactions.join(context, dataSource, work);
        }
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                T result = fencedAndCompleted(context, c, work);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                rollback(c, e);
                throw e;
            } finally {
                if (auto) {
                    c.setAutoCommit(true);
                }
            }
        }
    }

    /** The fence first (it holds a new owner's claim back until the commit), the work, the completion last. */
    static <T> T fencedAndCompleted(JobContext context, Connection c, TransactionWork<T> work) throws SQLException {
        context.fence(c);
        T result = work.run(c);
        context.complete(c);
        return result;
    }

    /** True if a Spring transaction is active on this thread (then Spring, not Tenure, commits). */
    static boolean inSpringTransaction() {
        return SPRING && SpringTransactions.active();
    }

    /** Sets autocommit back on a connection going back to its pool; a failure is added to {@code cause} if any. */
    static void restoreAutoCommit(Connection c, Throwable cause) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            } // else the pool resets (or evicts) it
        }
    }

    static void rollback(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e); // a broken connection: the server rolls back on its own
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, CompletingTransaction.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
