package dev.tenure.console;

import dev.tenure.db.TenureSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Retention of {@code job_run}: deletes finished runs (not RUNNING) that started before a cut-off, job by job, in
 * batches of bounded size, each batch its own short statement on {@code job_run_history_idx}, so a prune of millions
 * of rows never holds long locks or one huge transaction. Needs SELECT on {@code job_execution} and DELETE on
 * {@code job_run}.
 *
 * <p>A fire whose row was pruned is not known to be done any more: if it fires again (a catch-up, a retry of a very
 * old fire key), it runs again. So the cut-off must be older than any fire that can still come back; the least
 * accepted is {@link #MIN_AGE}.
 */
final class Retention {

    /** The youngest cut-off accepted. */
    static final Duration MIN_AGE = Duration.ofHours(1);

    /** What a prune did: the cut-off (database clock), rows deleted, jobs visited, batches run. */
    record Pruned(Instant cutOff, long deleted, int jobs, int batches) {}

    private final DataSource dataSource;
    private final ConsoleQueries queries;
    /** One batch's rows (the DELETE's sub-select): 1 job key, 2 cut-off, 3 batch size. */
    final String selectBatch;

    private final String deleteBatch;
    private final String cutOff = "SELECT statement_timestamp() - ?::interval";

    Retention(DataSource dataSource, String schema, ConsoleQueries queries) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.queries = queries;
        String q = "\"" + TenureSchema.checkName(schema) + "\"";
        this.selectBatch = "SELECT run_id FROM " + q + ".job_run WHERE job_key = ? AND started_at < ? "
                + "AND status <> 'RUNNING' ORDER BY started_at LIMIT ?";
        this.deleteBatch = "WITH doomed AS (" + selectBatch + ") DELETE FROM " + q + ".job_run r USING doomed d "
                + "WHERE r.run_id = d.run_id";
    }

    /**
     * Deletes finished runs older than {@code olderThan}, at most {@code batchSize} rows per statement.
     *
     * @throws IllegalArgumentException if {@code olderThan} is under {@link #MIN_AGE} or the batch size not 1..100000
     */
    Pruned prune(Duration olderThan, int batchSize) {
        if (olderThan.compareTo(MIN_AGE) < 0) {
            throw new IllegalArgumentException("--older-than must be at least " + MIN_AGE.toHours() + " h (got "
                    + olderThan + "): a pruned fire runs again if it ever fires again");
        }
        CliCommand.limit("--batch", batchSize, 100_000);
        Instant cut = queries.read(
                        "prune cut-off",
                        "*",
                        cutOff,
                        ps -> ps.setString(1, olderThan.toMillis() + " milliseconds"),
                        rs -> ConsoleQueries.instant(rs, 1))
                .get(0);
        long deleted = 0;
        int jobs = 0;
        int batches = 0;
        String after = "";
        for (List<Views.Job> page = queries.jobs(after, 500); !page.isEmpty(); page = queries.jobs(after, 500)) {
            for (Views.Job j : page) {
                jobs++;
                int n;
                do {
                    n = deleteBatch(j.jobKey(), cut, batchSize);
                    deleted += n;
                    batches++;
                } while (n == batchSize);
            }
            after = page.get(page.size() - 1).jobKey();
        }
        return new Pruned(cut, deleted, jobs, batches);
    }

    private int deleteBatch(String jobKey, Instant cut, int batchSize) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(deleteBatch)) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            ps.setString(1, jobKey);
            ps.setObject(2, java.time.OffsetDateTime.ofInstant(cut, java.time.ZoneOffset.UTC));
            ps.setInt(3, batchSize);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new ConsoleDatabaseException("prune", jobKey, e);
        }
    }
}
