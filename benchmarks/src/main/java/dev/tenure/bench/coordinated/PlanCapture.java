package dev.tenure.bench.coordinated;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Plans of the statements a row sent, each taken just before a real execution of it after the row's window: on the
 * same connection, with the same parameters, {@code EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF)} inside a savepoint
 * (or a transaction when the connection is in autocommit) that is rolled back. The statement then runs as it would
 * have. The plans are custom plans for the captured values (pgjdbc binds them); a pooled connection that has run a
 * statement five times may use a generic plan instead. A statement text is explained once, in the first row that
 * sends it.
 */
final class PlanCapture implements RecordingDataSource.BeforeExecute {

    private static final Pattern EXPLAINABLE = Pattern.compile("^\\s*(?i:select|insert|update|delete|with|values)\\b");

    /** Statement text to (row, plan lines), in the order they were taken. */
    final Map<String, Plan> plans = new LinkedHashMap<>();

    private volatile String row;
    private volatile Set<String> wanted = Set.of();

    record Plan(String row, List<String> lines) {}

    /** Explain the statements of {@code texts} that are not explained yet, as the row sends them next. */
    void want(String rowName, Set<String> texts) {
        row = rowName;
        wanted = texts;
    }

    /** Whether every wanted statement that can be explained has a plan. */
    synchronized boolean complete(Map<String, String> rawByText) {
        for (String t : wanted) {
            String raw = rawByText.get(t);
            if (!plans.containsKey(t) && raw != null && EXPLAINABLE.matcher(raw).find()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public synchronized void before(Connection raw, String text, String rawSql, Map<Integer, Object[]> parameters) {
        if (!wanted.contains(text)
                || plans.containsKey(text)
                || !EXPLAINABLE.matcher(rawSql).find()) {
            return;
        }
        plans.put(text, new Plan(row, explain(raw, rawSql, parameters)));
    }

    private static List<String> explain(Connection c, String sql, Map<Integer, Object[]> parameters) {
        List<String> lines = new ArrayList<>();
        try {
            boolean auto = c.getAutoCommit();
            try (Statement s = c.createStatement()) {
                s.execute(auto ? "BEGIN" : "SAVEPOINT pgprof_explain");
                try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF) " + sql)) {
                    RecordingDataSource.replay(ps, parameters);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            lines.add(rs.getString(1));
                        }
                    }
                } catch (Throwable e) {
                    lines.add("EXPLAIN failed: " + Node.oneLine(e.toString()));
                } finally {
                    s.execute(auto ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT pgprof_explain");
                    if (!auto) {
                        s.execute("RELEASE SAVEPOINT pgprof_explain");
                    }
                }
            }
        } catch (Exception e) {
            lines.add("EXPLAIN failed: " + Node.oneLine(e.toString()));
        }
        return lines;
    }
}
