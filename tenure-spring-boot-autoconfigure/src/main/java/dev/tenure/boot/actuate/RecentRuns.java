package dev.tenure.boot.actuate;

import dev.tenure.db.TenureSchema;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The latest runs of some jobs, newest first, from Tenure's {@code job_run} table (one statement, on the run-history
 * index). For the {@code tenure} endpoint; read-only. Thread-safe.
 */
final class RecentRuns {

    private final DataSource dataSource;
    private final String sql;

    RecentRuns(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        String table = "\"" + TenureSchema.checkName(schema) + "\".job_runs";
        this.sql =
                "SELECT job_key, fire_key, status, epoch, owner, attempt, started_at, finished_at, error, node FROM ("
                        + "SELECT r.*, row_number() OVER (PARTITION BY job_key ORDER BY started_at DESC, run_id DESC) AS n "
                        + "FROM " + table + " r WHERE job_key = ANY (?)) recent WHERE n <= ? ORDER BY job_key, n";
    }

    /** Up to {@code perJob} latest runs of each of {@code jobKeys}, by job key. */
    Map<String, List<TenureEndpoint.Run>> of(Collection<String> jobKeys, int perJob) throws SQLException {
        Map<String, List<TenureEndpoint.Run>> runs = new LinkedHashMap<>();
        if (jobKeys.isEmpty()) {
            return runs;
        }
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            Array keys = c.createArrayOf("text", jobKeys.toArray());
            ps.setArray(1, keys);
            ps.setInt(2, perJob);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String owner = rs.getString(5);
                    String node = rs.getString(10);
                    runs.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(new TenureEndpoint.Run(
                                    rs.getString(2),
                                    rs.getString(3),
                                    rs.getLong(4),
                                    node != null ? node : owner,
                                    owner,
                                    rs.getInt(6),
                                    iso(rs.getTimestamp(7)),
                                    iso(rs.getTimestamp(8)),
                                    rs.getString(9)));
                }
            }
        }
        return runs;
    }

    private static String iso(Timestamp t) {
        return t == null ? null : t.toInstant().toString();
    }
}
