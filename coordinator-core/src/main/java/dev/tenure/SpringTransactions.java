package dev.tenure;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/** Joining Spring's current transaction; loaded only when spring-jdbc is on the class path (an optional dependency). */
final class SpringTransactions {

    private SpringTransactions() {
    }

    static boolean active() {
        return TransactionSynchronizationManager.isActualTransactionActive();
    }

    static <T> T join(JobContext context, DataSource dataSource, TransactionWork<T> work) throws SQLException {
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            if (!DataSourceUtils.isConnectionTransactional(c, dataSource)) {
                throw new IllegalStateException("a Spring transaction is active, but not on the DataSource given to "
                        + "completeInTransaction for job '" + context.jobKey() + "': run it under a transaction manager "
                        + "of that DataSource (a DataSourceTransactionManager on it), so the fence, the writes and the "
                        + "completion commit together");
            }
            return CompletingTransaction.fencedAndCompleted(context, c, work);
        } catch (SQLException | RuntimeException | Error e) {
            markRollbackOnly(dataSource);
            throw e;
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    /** Spring's transaction manager then rolls back even if a caller swallows the exception. */
    private static void markRollbackOnly(DataSource dataSource) {
        if (TransactionSynchronizationManager.getResource(dataSource) instanceof ResourceHolderSupport holder) {
            holder.setRollbackOnly();
        }
    }
}
