package dev.tenure.db;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;

/**
 * An operator's retirement of one schedule ({@link TenureAdmin#retire}), in one statement: the schedule turns RETIRED
 * with the reason and the actor, its open span ends and a RETIRED span begins, the sweeper stops looking at it
 * ({@code check_at} NULL, nothing overdue), catch-ups still asked of processes are dropped, and an audit row is written.
 * A schedule already RETIRED is left as it is, and no audit row is written. Thread-safe.
 */
final class ScheduleRetirement {

    private final Jdbc jdbc;
    private final String retire;

    ScheduleRetirement(Jdbc jdbc, String q) {
        this.jdbc = jdbc;
        // 1 job, 2 reason, 3 by, 4 reason, 5 by, 6 actor, 7 reason. One time for every column: t.at.
        this.retire = """
                WITH t AS (SELECT clock_timestamp() AS at),
                cur AS (SELECT job_key, state, state_since, state_reason, state_by, seen_at FROM %1$s.job_schedule
                    WHERE job_key = ? FOR UPDATE),
                r AS (UPDATE %1$s.job_schedule s SET state = 'RETIRED', state_since = t.at, state_reason = ?,
                    state_by = ?, check_at = NULL, overdue = 0
                    FROM cur, t WHERE s.job_key = cur.job_key AND cur.state <> 'RETIRED' RETURNING s.job_key),
                closed AS (UPDATE %1$s.job_schedule_span p SET until_at = greatest(p.from_at, t.at) FROM r, t
                    WHERE p.job_key = r.job_key AND p.until_at IS NULL RETURNING p.job_key),
                span AS (INSERT INTO %1$s.job_schedule_span (job_key, state, from_at, reason, set_by)
                    SELECT r.job_key, 'RETIRED', t.at, ?, ? FROM r, t RETURNING job_key),
                dropped AS (DELETE FROM %1$s.job_catch_up c USING r WHERE c.job_key = r.job_key RETURNING c.job_key),
                aud AS (INSERT INTO %1$s.audit_log (actor, action, job_key, reason)
                    SELECT ?, 'retire', r.job_key, ? FROM r RETURNING id)
                SELECT cur.state, cur.state_since, cur.state_reason, cur.state_by, cur.seen_at, t.at,
                    (SELECT id FROM aud), (SELECT count(*) FROM dropped)
                FROM cur, t""".formatted(q);
    }

    /** Retires {@code key}'s schedule; empty if the job has no schedule. Arguments are validated by the caller. */
    Optional<TenureAdmin.Retirement> retire(String key, String reason, String actor) {
        return jdbc.run("retire schedule", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, retire)) {
                ps.setString(1, key);
                ps.setString(2, reason);
                ps.setString(3, actor);
                ps.setString(4, reason);
                ps.setString(5, actor);
                ps.setString(6, actor);
                ps.setString(7, reason);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    boolean already = "RETIRED".equals(rs.getString(1));
                    return Optional.of(new TenureAdmin.Retirement(
                            key,
                            !already,
                            rs.getString(1),
                            already ? Rows.instant(rs, 2) : Rows.at(rs, 6),
                            already ? rs.getString(3) : reason,
                            already ? rs.getString(4) : actor,
                            already ? 0 : rs.getLong(7),
                            rs.getInt(8),
                            Rows.instant(rs, 5),
                            Rows.at(rs, 6)));
                }
            }
        });
    }
}
