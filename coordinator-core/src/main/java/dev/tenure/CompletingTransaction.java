package dev.tenure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * {@link JobContext#completeInTransaction}: fence, work, complete and commit on one connection, or roll back. Joins
 * Spring's current transaction instead when spring-jdbc is present and one is active (Spring then commits). With
 * spring-jdbc present and no Spring transaction active, the transaction Tenure opens is bound to Spring's transaction
 * synchronization for the data source while it runs ({@link BoundTransaction}), so that Spring's data access on that
 * data source ({@code JdbcTemplate}, {@code JdbcClient}, {@code DataSourceUtils}) joins it.
 */
final class CompletingTransaction {

    private static final boolean SPRING = present("org.springframework.jdbc.datasource.DataSourceUtils")
            && present("org.springframework.transaction.support.TransactionSynchronizationManager");

    private CompletingTransaction() {}

    public static <T> @Nullable T run(JobContext context, DataSource dataSource, ConnectionWork<T> work)
            throws SQLException {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(work, "work");
        if (inSpringTransaction()) {
            return SpringTransactions.join(context, dataSource, work);
        }
        return committed(dataSource, c -> fencedAndCompleted(context, c, work));
    }

    /**
     * Runs {@code body} in a transaction of its own on {@code dataSource} and commits it; rolls back on any exception,
     * which is then rethrown. The connection is back in its pool when this returns. With spring-jdbc present, Spring's
     * data access on {@code dataSource} joins the transaction while {@code body} runs.
     */
    static <T> @Nullable T committed(DataSource dataSource, ConnectionWork<T> body) throws SQLException {
        if (SPRING) {
            return BoundTransaction.committed(dataSource, body);
        }
        try (Connection c = dataSource.getConnection()) {
            return committed(c, body, Around.NONE);
        }
    }

    /** What happens around the end of a transaction Tenure runs: nothing, or Spring's synchronization callbacks. */
    interface Around {
        /** Completion states, as Spring's {@code TransactionSynchronization} numbers them. */
        int COMMITTED = 0;

        int ROLLED_BACK = 1;
        int UNKNOWN = 2;

        Around NONE = new Around() {};

        /** Before the commit; an exception here rolls the transaction back instead. */
        default void beforeCommit() {}

        /** Before the commit or the rollback; must not throw. */
        default void beforeCompletion() {}

        /** After the commit or the rollback, with its {@code status}. */
        default void afterCompletion(int status) {}
    }

    /**
     * Runs {@code body} in a transaction on {@code c} and commits it; rolls back on any exception, which is then
     * rethrown; calls {@code around} on the way. Restores autocommit.
     */
    static <T> @Nullable T committed(Connection c, ConnectionWork<T> body, Around around) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            T result;
            try {
                result = body.run(c);
                around.beforeCommit();
            } catch (SQLException | RuntimeException | Error e) {
                around.beforeCompletion();
                rollback(c, e);
                around.afterCompletion(Around.ROLLED_BACK);
                throw e;
            }
            around.beforeCompletion();
            try {
                c.commit();
            } catch (SQLException | RuntimeException | Error e) {
                rollback(c, e);
                around.afterCompletion(Around.UNKNOWN);
                throw e;
            }
            around.afterCompletion(Around.COMMITTED);
            return result;
        } finally {
            if (auto) {
                c.setAutoCommit(true);
            }
        }
    }

    /** The fence first (it holds a new owner's claim back until the commit), the work, the completion last. */
    static <T> @Nullable T fencedAndCompleted(JobContext context, Connection c, ConnectionWork<T> work)
            throws SQLException {
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
