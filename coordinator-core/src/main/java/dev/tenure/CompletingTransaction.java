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
        return committed(dataSource, c -> fencedAndCompleted(context, c, work));
    }

    /**
     * Runs {@code body} in a transaction of its own on {@code dataSource} and commits it; rolls back on any exception,
     * which is then rethrown. The connection is back in its pool when this returns.
     */
    static <T> T committed(DataSource dataSource, TransactionWork<T> body) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                T result = body.run(c);
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

    private static void rollback(Connection c, Throwable cause) {
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
