package dev.tenure.console;

import dev.tenure.db.TenureSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The console's reads of Tenure's tables, each one bounded statement on an index: jobs by key (keyset on the primary
 * key), one job's fires in slot order (keyset on {@code job_run_fire_uq (job_key, fire_key)}), its latest
 * {@value #RECENT} runs by start ({@code job_run_history_idx (job_key, started_at DESC, run_id DESC)}), roles without
 * runs. Runs are read from the view {@code job_runs} (schema version 8): the rows of {@code job_run} with each job's
 * running fire, which its job row carries, merged in by the same indexes. Needs only SELECT. SQL is fixed at construction from the
 * validated schema name; every input is a bind parameter. Thread-safe.
 */
final class ConsoleQueries {

    /** How many latest runs a summary, the timeline and ttl-advice look at. */
    static final int RECENT = 1000;
    /** Fires in the last hour are counted up to this many (then shown as "at least"). */
    static final int FIRES_CAP = 10_000;

    private static final String MILLIS_LEFT =
            "(extract(epoch FROM je.lease_expires_at - clock_timestamp()) * 1000)::bigint";
    private static final String RUN_COLUMNS = "run_id, fire_key, epoch, owner, status, attempt, previous_status, "
            + "started_at, finished_at, error, node, trace_id";

    private final DataSource dataSource;
    final String jobsSql;
    private final String job;
    final String firstPageSql;
    final String nextPageSql;
    final String recentSql;
    final String rolesSql;
    private final String audit;

    ConsoleQueries(DataSource dataSource, String schema) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        String q = "\"" + TenureSchema.checkName(schema) + "\"";
        String jobColumns = "SELECT je.job_key, je.fencing_token, je.owner, je.claimed_at, je.lease_expires_at, "
                + MILLIS_LEFT + ", lr.status, lr.fire_key, lr.started_at, "
                + "(SELECT count(*) FROM (SELECT 1 FROM " + q + ".job_runs h WHERE h.job_key = je.job_key "
                + "AND h.started_at > statement_timestamp() - interval '1 hour' LIMIT " + FIRES_CAP + ") f), "
                + "EXISTS (SELECT 1 FROM " + q + ".job_schedule s WHERE s.job_key = je.job_key), je.node "
                + "FROM " + q + ".job_execution je LEFT JOIN LATERAL (SELECT r.status, r.fire_key, r.started_at FROM "
                + q
                + ".job_runs r WHERE r.job_key = je.job_key ORDER BY r.started_at DESC, r.run_id DESC LIMIT 1) lr ON true ";
        this.jobsSql = jobColumns + "WHERE je.job_key > ? ORDER BY je.job_key LIMIT ?";
        this.job = jobColumns + "WHERE je.job_key = ?";
        String runs = "SELECT " + RUN_COLUMNS + " FROM " + q + ".job_runs WHERE job_key = ? ";
        // pages in slot order: by fire key, the latest first (ISO-8601 fire keys sort as their times)
        String bySlot = "ORDER BY fire_key DESC LIMIT ?";
        this.firstPageSql = runs + bySlot;
        this.nextPageSql = runs + "AND fire_key < ? " + bySlot;
        this.recentSql = runs + "ORDER BY started_at DESC, run_id DESC LIMIT ?";
        this.rolesSql = "SELECT je.job_key, je.fencing_token, je.owner, je.claimed_at, " + MILLIS_LEFT + ", je.node "
                + "FROM " + q + ".job_execution je WHERE NOT EXISTS (SELECT 1 FROM " + q + ".job_runs r "
                + "WHERE r.job_key = je.job_key) AND NOT EXISTS (SELECT 1 FROM " + q + ".job_schedule s "
                + "WHERE s.job_key = je.job_key) ORDER BY je.job_key LIMIT ?";
        this.audit = "SELECT at, actor, action, reason, old_epoch, old_owner, new_epoch, old_node FROM " + q
                + ".audit_log " + "WHERE job_key = ? ORDER BY id DESC LIMIT ?";
    }

    /** Up to {@code limit} jobs and roles with keys after {@code afterKey} ("" for the first page), by key. */
    List<Views.Job> jobs(String afterKey, int limit) {
        return read(
                "list jobs",
                "*",
                jobsSql,
                ps -> {
                    ps.setString(1, afterKey);
                    ps.setInt(2, limit);
                },
                ConsoleQueries::job);
    }

    /** One job or role, if it has a row. */
    Optional<Views.Job> job(String jobKey) {
        return read("read job", jobKey, job, ps -> ps.setString(1, jobKey), ConsoleQueries::job).stream()
                .findFirst();
    }

    /**
     * Up to {@code limit} fires of {@code jobKey} in slot order (by fire key, the latest first), before {@code before}
     * (empty: from the latest).
     */
    Views.RunPage runs(String jobKey, Optional<Cursor> before, int limit) {
        List<Views.Run> rows = read(
                "list runs",
                jobKey,
                before.isPresent() ? nextPageSql : firstPageSql,
                ps -> {
                    ps.setString(1, jobKey);
                    int i = 2;
                    if (before.isPresent()) {
                        ps.setString(i++, before.get().fireKey());
                    }
                    ps.setInt(i, limit + 1); // one more: is there a next page, and was the last one a rotation
                },
                ConsoleQueries::run);
        List<Views.Run> page = withRotations(rows);
        if (page.size() <= limit) {
            return new Views.RunPage(jobKey, page, Optional.empty());
        }
        Views.Run last = page.get(limit - 1);
        return new Views.RunPage(jobKey, page.subList(0, limit), Optional.of(new Cursor(last.fireKey())));
    }

    /**
     * The latest {@value #RECENT} runs of {@code jobKey} by start, oldest first, with what happened in them: each fire
     * in exactly one bucket by how its row ended ({@link Views.Summary}).
     */
    Views.Summary summary(String jobKey) {
        List<Views.Run> recent = new ArrayList<>(withRotations(read(
                "list recent runs",
                jobKey,
                recentSql,
                ps -> {
                    ps.setString(1, jobKey);
                    ps.setInt(2, RECENT);
                },
                ConsoleQueries::run)));
        java.util.Collections.reverse(recent);
        return new Views.Summary(
                jobKey,
                recent,
                (int) recent.stream().filter(Views.Run::rotation).count(),
                (int) recent.stream()
                        .filter(r -> "REJECTED_STALE".equals(r.status()))
                        .count(),
                (int) recent.stream()
                        .filter(r -> "ABANDONED".equals(r.status()))
                        .count(),
                (int) recent.stream().filter(r -> "FAILED".equals(r.status())).count(),
                recent.stream().mapToLong(Views.Run::missedFires).sum());
    }

    /** Up to {@code limit} roles: rows without runs or a schedule (leader elections, plain database leases), by name. */
    List<Views.Leader> leaders(int limit) {
        return read("list leaders", "*", rolesSql, ps -> ps.setInt(1, limit), rs -> {
            Duration left = interval(rs, 5);
            boolean live = rs.getString(3) != null && left != null && left.compareTo(Duration.ZERO) > 0;
            return new Views.Leader(
                    rs.getString(1),
                    rs.getLong(2),
                    live ? rs.getString(3) : null,
                    live ? Nodes.named(rs.getString(6), rs.getString(3)) : null,
                    live ? instant(rs, 4) : null,
                    live ? left : null);
        });
    }

    /** The latest {@code limit} operator actions on {@code jobKey}, newest first. */
    List<Views.Audit> audit(String jobKey, int limit) {
        return read(
                "read audit log",
                jobKey,
                audit,
                ps -> {
                    ps.setString(1, jobKey);
                    ps.setInt(2, limit);
                },
                rs -> new Views.Audit(
                        instant(rs, 1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getString(4),
                        rs.getObject(5, Long.class),
                        rs.getString(6),
                        rs.getObject(7, Long.class),
                        rs.getString(8)));
    }

    /**
     * Newest first; a run is a rotation when the next older run's node differs. MISSED fires were run by nobody: they
     * are never rotations and are skipped when looking for the older run. (The last run has none to compare with.)
     */
    static List<Views.Run> withRotations(List<Views.Run> newestFirst) {
        List<Views.Run> out = new ArrayList<>(newestFirst.size());
        String olderNode = null; // the node of the nearest older run that is not MISSED, walking from the oldest
        boolean[] rotation = new boolean[newestFirst.size()];
        for (int i = newestFirst.size() - 1; i >= 0; i--) {
            Views.Run r = newestFirst.get(i);
            if (!r.missed()) {
                rotation[i] = olderNode != null && !Objects.equals(r.node(), olderNode);
                olderNode = r.node();
            }
        }
        for (int i = 0; i < newestFirst.size(); i++) {
            out.add(newestFirst.get(i).withRotation(rotation[i]));
        }
        return out;
    }

    private static Views.Job job(ResultSet rs) throws SQLException {
        String last = rs.getString(7);
        return new Views.Job(
                rs.getString(1),
                last == null && !rs.getBoolean(11) ? "role" : "job",
                rs.getLong(2),
                rs.getString(3),
                instant(rs, 4),
                instant(rs, 5),
                interval(rs, 6),
                last,
                rs.getString(8),
                instant(rs, 9),
                rs.getLong(10),
                rs.getString(12));
    }

    private static Views.Run run(ResultSet rs) throws SQLException {
        return new Views.Run(
                rs.getObject(1, UUID.class),
                rs.getString(2),
                rs.getLong(3),
                rs.getString(4),
                rs.getString(11),
                rs.getString(5),
                rs.getInt(6),
                rs.getString(7),
                instant(rs, 8),
                instant(rs, 9),
                rs.getString(10),
                false,
                rs.getString(12));
    }

    static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** A milliseconds column as a Duration; null for NULL. */
    private static Duration interval(ResultSet rs, int column) throws SQLException {
        long millis = rs.getLong(column);
        return rs.wasNull() ? null : Duration.ofMillis(millis);
    }

    /** Binds parameters of a statement. */
    interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** Maps one row. */
    interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    <T> List<T> read(String what, String key, String sql, Binder binder, RowMapper<T> mapper) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            List<T> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(mapper.map(rs));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new ConsoleDatabaseException(what, key, e);
        }
    }
}
