package dev.tenure.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The reads of {@code job_schedule}, its versions and spans, and MISSED runs behind {@link TenureAdmin}'s schedule
 * views. Thread-safe.
 */
final class ScheduleReads {

    /** The fires a MISSED row stands for: a summary's count (see {@link MissedSummary}), else 1. */
    private static final String FIRES_OF_ROW = "CASE WHEN m.fire_key LIKE '%..%' AND m.error ~ '"
            + MissedSummary.ERROR_PREFIX + "' THEN split_part(m.error, ' ', 1)::bigint ELSE 1 END";

    private final Jdbc jdbc;
    private final String schedules;
    private final String schedule;
    private final String schedulesOf;
    private final String attention;
    private final String mayBeOverdue;
    private final String missed;
    private final String missedOfJob;
    private final String versions;
    private final String spans;

    ScheduleReads(Jdbc jdbc, String quotedSchema) {
        this.jdbc = jdbc;
        String js = quotedSchema + ".job_schedule";
        String jr = quotedSchema + ".job_run";
        String columns = """
                SELECT s.job_key, s.kind, s.expression, s.policy, s.integration, s.registered_by, s.registered_at,
                    s.previous_kind || ' ' || s.previous_expression, s.previous_by, s.changed_at, s.swept_until,
                    s.swept_at, s.swept_by, s.next_due_at, s.overdue, s.missed_total, s.last_missed_at,
                    (SELECT r.finished_at FROM %1$s r WHERE r.job_key = s.job_key AND r.status = 'COMPLETED'
                        ORDER BY r.started_at DESC LIMIT 1),
                    (SELECT least(coalesce(sum(x.n), 0), %3$s) FROM (SELECT %4$s AS n FROM %1$s m
                        WHERE m.job_key = s.job_key AND m.status = 'MISSED'
                        AND m.finished_at > clock_timestamp() - interval '1 hour' LIMIT %3$s) x),
                    s.application, s.state, s.state_since, s.state_reason, s.state_by, s.version, s.version_from,
                    s.seen_at, s.check_at, s.sweep_error, clock_timestamp()
                FROM %2$s s
                """.formatted(jr, js, TenureAdmin.MISSED_CAP, FIRES_OF_ROW);
        schedules = columns + "ORDER BY s.job_key LIMIT ?";
        schedule = columns + "WHERE s.job_key = ?";
        schedulesOf = columns + "WHERE s.job_key = ANY(?) ORDER BY s.job_key";
        // 1 missed within ms, 2 unswept after ms, 3 limit. Paused ones last: the limit keeps those that alarm. A fire
        // due
        // (past its grace) after the account may be overdue with no sweeper running: TenureAdmin.overdue tells.
        attention = columns + """
                WHERE s.state <> 'RETIRED' AND (s.state = 'PAUSED' OR s.overdue > 0
                    OR s.last_missed_at > clock_timestamp() - ? * interval '1 millisecond'
                    OR s.sweep_error IS NOT NULL
                    OR (s.state = 'ACTIVE' AND s.check_at < clock_timestamp() - ? * interval '1 millisecond'))
                ORDER BY s.state = 'PAUSED', s.job_key LIMIT ?""";
        mayBeOverdue = columns + """
                WHERE s.state <> 'RETIRED' AND (s.state = 'PAUSED' OR s.overdue > 0
                    OR s.last_missed_at > clock_timestamp() - ? * interval '1 millisecond'
                    OR s.sweep_error IS NOT NULL
                    OR (s.state = 'ACTIVE' AND s.check_at < clock_timestamp() - ? * interval '1 millisecond')
                    OR (s.state = 'ACTIVE' AND coalesce(s.next_due_at, s.swept_until)
                        <= clock_timestamp() - s.grace_ms * interval '1 millisecond'))
                ORDER BY s.state = 'PAUSED', s.job_key LIMIT ?""";
        missed = """
                SELECT job_key, fire_key, finished_at, error, owner FROM %s WHERE status = 'MISSED'
                AND finished_at > clock_timestamp() - ? * interval '1 millisecond'
                ORDER BY finished_at DESC, fire_key DESC LIMIT ?""".formatted(jr);
        missedOfJob = """
                SELECT job_key, fire_key, finished_at, error, owner FROM %s WHERE status = 'MISSED'
                AND job_key = ? AND finished_at > clock_timestamp() - ? * interval '1 millisecond'
                ORDER BY finished_at DESC, fire_key DESC LIMIT ?""".formatted(jr);
        versions = """
                SELECT version, kind, expression, policy, registered_by, valid_from, valid_until
                FROM %s.job_schedule_version WHERE job_key = ? ORDER BY version DESC LIMIT %s""".formatted(quotedSchema, ScheduleHistory.MAX);
        spans = """
                SELECT state, from_at, until_at, reason, set_by
                FROM %s.job_schedule_span WHERE job_key = ? ORDER BY from_at DESC LIMIT %s""".formatted(quotedSchema, ScheduleHistory.MAX);
    }

    List<TenureAdmin.ScheduleState> schedules(int limit) {
        return jdbc.run("list schedules", "*", false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, schedules)) {
                ps.setInt(1, limit);
                return states(ps);
            }
        });
    }

    List<TenureAdmin.ScheduleState> schedule(String jobKey) {
        return jdbc.run("read schedule", jobKey, false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, schedule)) {
                ps.setString(1, jobKey);
                return states(ps);
            }
        });
    }

    List<TenureAdmin.ScheduleState> schedulesOf(String[] jobKeys) {
        return jdbc.run("read schedules", "*", false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, schedulesOf)) {
                ps.setArray(1, c.createArrayOf("text", jobKeys));
                return states(ps);
            }
        });
    }

    List<TenureAdmin.ScheduleState> attention(
            Duration within, Duration unsweptAfter, int limit, boolean andMaybeOverdue) {
        return jdbc.run("list schedules that need attention", "*", false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, andMaybeOverdue ? mayBeOverdue : attention)) {
                ps.setLong(1, within.toMillis());
                ps.setLong(2, unsweptAfter.toMillis());
                ps.setInt(3, limit);
                return states(ps);
            }
        });
    }

    /** The versions and spans of {@code jobKey}'s schedule, newest first, in one read. */
    ScheduleHistory history(String jobKey) {
        return jdbc.run("read schedule history", jobKey, false, c -> {
            List<ScheduleHistory.Version> vs = new ArrayList<>();
            try (ResultSet rs = query(c, versions, jobKey)) {
                while (rs.next()) {
                    vs.add(new ScheduleHistory.Version(
                            rs.getInt(1),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4),
                            rs.getString(5),
                            Rows.instant(rs, 6),
                            Rows.instant(rs, 7)));
                }
            }
            List<ScheduleHistory.Span> ss = new ArrayList<>();
            try (ResultSet rs = query(c, spans, jobKey)) {
                while (rs.next()) {
                    ss.add(new ScheduleHistory.Span(
                            rs.getString(1), Rows.at(rs, 2), Rows.instant(rs, 3), rs.getString(4), rs.getString(5)));
                }
            }
            return new ScheduleHistory(jobKey, vs, ss);
        });
    }

    /** The rows of {@code sql} for {@code jobKey}; closing the result set closes the statement. */
    private ResultSet query(Connection c, String sql, String jobKey) throws SQLException {
        PreparedStatement ps = jdbc.prepare(c, sql);
        ps.closeOnCompletion();
        ps.setString(1, jobKey);
        return ps.executeQuery();
    }

    private static List<TenureAdmin.ScheduleState> states(PreparedStatement ps) throws SQLException {
        List<TenureAdmin.ScheduleState> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new TenureAdmin.ScheduleState(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getString(4),
                        rs.getString(5),
                        rs.getString(6),
                        Rows.at(rs, 7),
                        rs.getString(8),
                        rs.getString(9),
                        Rows.instant(rs, 10),
                        Rows.at(rs, 11),
                        Rows.instant(rs, 12),
                        rs.getString(13),
                        Rows.instant(rs, 14),
                        rs.getInt(15),
                        rs.getLong(16),
                        Rows.instant(rs, 17),
                        Rows.instant(rs, 18),
                        rs.getLong(19),
                        rs.getString(20),
                        rs.getString(21),
                        Rows.instant(rs, 22),
                        rs.getString(23),
                        rs.getString(24),
                        rs.getInt(25),
                        Rows.instant(rs, 26),
                        Rows.instant(rs, 27),
                        Rows.instant(rs, 28),
                        rs.getString(29),
                        Rows.at(rs, 30)));
            }
        }
        return out;
    }

    List<TenureAdmin.MissedFire> missed(@Nullable String jobKey, Duration within, int limit) {
        return jdbc.run("list missed fires", jobKey == null ? "*" : jobKey, false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, jobKey == null ? missed : missedOfJob)) {
                int i = 1;
                if (jobKey != null) {
                    ps.setString(i++, jobKey);
                }
                ps.setLong(i++, within.toMillis());
                ps.setInt(i, limit);
                List<TenureAdmin.MissedFire> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new TenureAdmin.MissedFire(
                                rs.getString(1), rs.getString(2), Rows.at(rs, 3), rs.getString(4), rs.getString(5)));
                    }
                }
                return out;
            }
        });
    }
}
