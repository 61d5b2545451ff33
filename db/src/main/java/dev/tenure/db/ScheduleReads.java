package dev.tenure.db;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The reads of {@code job_schedule} and MISSED runs behind {@link TenureAdmin}'s schedule views. Thread-safe. */
final class ScheduleReads {

    private final Jdbc jdbc;
    private final String schedules;
    private final String schedule;
    private final String schedulesOf;
    private final String attention;
    private final String missed;
    private final String missedOfJob;

    ScheduleReads(Jdbc jdbc, String quotedSchema) {
        this.jdbc = jdbc;
        String js = quotedSchema + ".job_schedule";
        String jr = quotedSchema + ".job_run";
        String columns =
                "SELECT s.job_key, s.kind, s.expression, s.policy, s.integration, s.registered_by, s.registered_at, "
                        + "s.previous_kind || ' ' || s.previous_expression, s.previous_by, s.changed_at, s.swept_until, s.swept_at, "
                        + "s.swept_by, s.next_due_at, s.overdue, s.missed_total, s.last_missed_at, "
                        + "(SELECT r.finished_at FROM " + jr
                        + " r WHERE r.job_key = s.job_key AND r.status = 'COMPLETED' "
                        + "ORDER BY r.started_at DESC LIMIT 1), "
                        + "(SELECT count(*) FROM (SELECT 1 FROM " + jr
                        + " m WHERE m.job_key = s.job_key AND m.status = 'MISSED' "
                        + "AND m.finished_at > clock_timestamp() - interval '1 hour' LIMIT " + TenureAdmin.MISSED_CAP
                        + ") x) "
                        + "FROM " + js + " s ";
        schedules = columns + "ORDER BY s.job_key LIMIT ?";
        schedule = columns + "WHERE s.job_key = ?";
        schedulesOf = columns + "WHERE s.job_key = ANY(?) ORDER BY s.job_key";
        attention = columns + "WHERE s.state <> 'RETIRED' AND (s.overdue > 0 "
                + "OR s.last_missed_at > clock_timestamp() - ? * interval '1 millisecond') "
                + "ORDER BY s.job_key LIMIT ?";
        String missedColumns =
                "SELECT job_key, fire_key, finished_at, error, owner FROM " + jr + " WHERE status = 'MISSED' ";
        missed = missedColumns + "AND finished_at > clock_timestamp() - ? * interval '1 millisecond' "
                + "ORDER BY finished_at DESC, fire_key DESC LIMIT ?";
        missedOfJob =
                missedColumns + "AND job_key = ? AND finished_at > clock_timestamp() - ? * interval '1 millisecond' "
                        + "ORDER BY finished_at DESC, fire_key DESC LIMIT ?";
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

    List<TenureAdmin.ScheduleState> attention(Duration within, int limit) {
        return jdbc.run("list overdue schedules", "*", false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, attention)) {
                ps.setLong(1, within.toMillis());
                ps.setInt(2, limit);
                return states(ps);
            }
        });
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
                        rs.getLong(19)));
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
