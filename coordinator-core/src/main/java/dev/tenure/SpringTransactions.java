package dev.tenure;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** Joining Spring's current transaction; loaded only when spring-jdbc is on the class path (an optional dependency). */
final class SpringTransactions {

    private static final Logger log = LoggerFactory.getLogger(SpringTransactions.class);

    private SpringTransactions() {}

    static boolean active() {
        return TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * Fence, work and completion in Spring's current transaction on {@code dataSource}. The run's outcome is recorded
     * when that transaction ends ({@link ActiveRun#completionPending}): until then its completion holds the fire's run
     * row, so recording it earlier, on another connection, would wait for a commit that waits for it.
     */
    static <T> @Nullable T join(JobContext context, DataSource dataSource, ConnectionWork<T> work) throws SQLException {
        DataSource key = key(dataSource);
        Connection c = DataSourceUtils.getConnection(key);
        try {
            if (!DataSourceUtils.isConnectionTransactional(c, key)) {
                throw new IllegalStateException("a Spring transaction is active, but not on the DataSource given to "
                        + "completeInTransaction for job '" + context.jobKey()
                        + "': run it under a transaction manager "
                        + "of that DataSource (a DataSourceTransactionManager on it), so the fence, the writes and the "
                        + "completion commit together");
            }
            T result = CompletingTransaction.fencedAndCompleted(context, c, work);
            finishAfterTheTransaction(context);
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            markRollbackOnly(key);
            throw e;
        } finally {
            DataSourceUtils.releaseConnection(c, key);
        }
    }

    /**
     * The key Spring's transaction managers bind a data source's connection under: the target of a
     * {@link TransactionAwareDataSourceProxy} (whose connections look that target up), else the data source itself.
     */
    static DataSource key(DataSource dataSource) {
        if (dataSource instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
            return proxy.getTargetDataSource();
        }
        return dataSource;
    }

    private static void finishAfterTheTransaction(JobContext context) {
        if (!(context instanceof ActiveRun run) || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        run.completionPending();
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                try {
                    run.completionEnded(status == STATUS_COMMITTED);
                } catch (RuntimeException e) {
                    log.warn(
                            "{}: the outcome of fire {} could not be recorded after its transaction ended; the "
                                    + "leases are released, the next claim takes the fire over",
                            run.jobKey(),
                            run.fireKey(),
                            e);
                }
            }
        });
    }

    /** Spring's transaction manager then rolls back even if a caller swallows the exception. */
    private static void markRollbackOnly(DataSource dataSource) {
        if (TransactionSynchronizationManager.getResource(dataSource) instanceof ResourceHolderSupport holder) {
            holder.setRollbackOnly();
        }
    }
}
