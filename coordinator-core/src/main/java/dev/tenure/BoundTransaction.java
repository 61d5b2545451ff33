package dev.tenure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

/**
 * A transaction Tenure opens itself (no Spring transaction is active), made visible to Spring as its
 * {@code DataSourceTransactionManager} makes its own: while the work runs, the connection is bound to the thread's
 * transaction synchronization for the data source, a transaction is active and synchronization is on, so that
 * {@code JdbcTemplate}, {@code JdbcClient}, {@code DataSourceUtils} and participating {@code @Transactional} code on that
 * data source use this transaction. Synchronizations registered meanwhile run around its commit or rollback; one that
 * marks it rollback-only makes it roll back with an {@link UnexpectedRollbackException}. Everything is unbound before
 * this returns. Loaded only when spring-jdbc is on the class path.
 */
final class BoundTransaction implements CompletingTransaction.Around {

    private final ConnectionHolder holder;

    private BoundTransaction(ConnectionHolder holder) {
        this.holder = holder;
    }

    /** {@link CompletingTransaction#committed(DataSource, ConnectionWork)}, bound for Spring's data access. */
    static <T> @Nullable T committed(DataSource dataSource, ConnectionWork<T> body) throws SQLException {
        DataSource key = SpringTransactions.key(dataSource);
        @Nullable Outer outer = Outer.suspend();
        try (Connection c = key.getConnection()) {
            if (TransactionSynchronizationManager.hasResource(key)) {
                // bound by code outside Spring's transaction management: leave it alone
                return CompletingTransaction.committed(c, body, CompletingTransaction.Around.NONE);
            }
            ConnectionHolder holder = new ActiveHolder(c);
            TransactionSynchronizationManager.bindResource(key, holder);
            TransactionSynchronizationManager.initSynchronization();
            TransactionSynchronizationManager.setActualTransactionActive(true);
            try {
                return CompletingTransaction.committed(c, body, new BoundTransaction(holder));
            } finally {
                TransactionSynchronizationManager.clear();
                TransactionSynchronizationManager.unbindResource(key);
                holder.clear();
            }
        } finally {
            if (outer != null) {
                outer.resume();
            }
        }
    }

    @Override
    public void beforeCommit() {
        if (holder.isRollbackOnly()) {
            throw new UnexpectedRollbackException("the transaction was marked rollback-only by code that joined it "
                    + "(a participating transaction failed): rolled back, nothing of the work committed");
        }
        TransactionSynchronizationUtils.triggerBeforeCommit(false);
    }

    @Override
    public void beforeCompletion() {
        TransactionSynchronizationUtils.triggerBeforeCompletion();
    }

    @Override
    public void afterCompletion(int status) {
        List<TransactionSynchronization> synchronizations = TransactionSynchronizationManager.getSynchronizations();
        try {
            if (status == COMMITTED) {
                TransactionSynchronizationUtils.triggerAfterCommit();
            }
        } finally {
            TransactionSynchronizationManager.clearSynchronization();
            TransactionSynchronizationUtils.invokeAfterCompletion(synchronizations, status);
        }
    }

    /** A connection holder in a transaction, as Spring's transaction manager makes one (its setter is protected). */
    private static final class ActiveHolder extends ConnectionHolder {
        ActiveHolder(Connection c) {
            super(c);
            setSynchronizedWithTransaction(true);
            setTransactionActive(true);
        }
    }

    /**
     * The synchronizations of an enclosing scope that has no transaction (Spring's SUPPORTS), set aside while Tenure's
     * transaction runs and resumed after it, as Spring does when it starts a new transaction in such a scope.
     */
    private record Outer(
            List<TransactionSynchronization> synchronizations,
            @Nullable String name,
            boolean readOnly,
            @Nullable Integer isolation,
            boolean active) {

        /** The enclosing scope's synchronizations, set aside; null if synchronization is not active. */
        static @Nullable Outer suspend() {
            if (!TransactionSynchronizationManager.isSynchronizationActive()) {
                return null;
            }
            List<TransactionSynchronization> suspended = TransactionSynchronizationManager.getSynchronizations();
            suspended.forEach(TransactionSynchronization::suspend);
            TransactionSynchronizationManager.clearSynchronization();
            Outer outer = new Outer(
                    suspended,
                    TransactionSynchronizationManager.getCurrentTransactionName(),
                    TransactionSynchronizationManager.isCurrentTransactionReadOnly(),
                    TransactionSynchronizationManager.getCurrentTransactionIsolationLevel(),
                    TransactionSynchronizationManager.isActualTransactionActive());
            TransactionSynchronizationManager.clear();
            return outer;
        }

        void resume() {
            TransactionSynchronizationManager.setActualTransactionActive(active);
            TransactionSynchronizationManager.setCurrentTransactionIsolationLevel(isolation);
            TransactionSynchronizationManager.setCurrentTransactionReadOnly(readOnly);
            TransactionSynchronizationManager.setCurrentTransactionName(name);
            TransactionSynchronizationManager.initSynchronization();
            for (TransactionSynchronization s : synchronizations) {
                s.resume();
                TransactionSynchronizationManager.registerSynchronization(s);
            }
        }
    }
}
