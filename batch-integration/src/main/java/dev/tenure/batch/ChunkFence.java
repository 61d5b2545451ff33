package dev.tenure.batch;

import dev.tenure.integration.ClaimedRun;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The fence check on the connection of the current Spring transaction: it must be a transaction on the fenced
 * {@code DataSource} (a {@code DataSourceTransactionManager} on it), or the check could not roll anything back.
 * Thread-safe.
 */
final class ChunkFence {

    private final DataSource dataSource;

    ChunkFence(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /** Throws {@code dev.tenure.StaleOwnerException} (from the ledger) if {@code run}'s epoch is no longer current. */
    void check(ClaimedRun run) throws SQLException {
        onTransaction(run, run::fence);
    }

    /**
     * The fence check plus "this fire is done", in the current transaction: it commits with the writes of that
     * transaction (the job execution's COMPLETED status) or not at all.
     */
    void complete(ClaimedRun run) throws SQLException {
        onTransaction(run, run::complete);
    }

    private interface OnConnection {
        void accept(Connection c) throws SQLException;
    }

    private void onTransaction(ClaimedRun run, OnConnection action) throws SQLException {
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            if (!DataSourceUtils.isConnectionTransactional(c, dataSource)) {
                throw new BatchFencingException(
                        "the chunk of job '" + run.jobKey() + "' is not in a transaction on the "
                                + "fenced DataSource: give the step a DataSourceTransactionManager on the same DataSource as "
                                + "TenureBatch (and the business tables)",
                        run.jobKey(),
                        null);
            }
            action.accept(c);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }
}
