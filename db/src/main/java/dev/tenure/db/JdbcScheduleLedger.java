package dev.tenure.db;

import dev.tenure.spi.ScheduleLedger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The sweeper's ledger on Postgres: {@code job_schedule} (one row per scheduled job) and MISSED rows in
 * {@code job_run}. Each sweep costs three statements whatever the number of jobs (arrays through {@code unnest}), a
 * fourth and fifth only when fires are recorded MISSED. Thread-safe; holds no resources of its own.
 *
 * <p><b>Why recording MISSED cannot hide a run.</b> It locks the jobs' rows in {@code job_execution} FOR NO KEY UPDATE
 * first (SKIP LOCKED: a job whose row is busy waits for the next sweep), which a claim (FOR UPDATE) waits for, and a
 * fence check (FOR KEY SHARE) does not. Its second statement then sees every claim committed before the lock, and no
 * claim can commit before it ends; it records a fire MISSED only where no run of it exists, or where its run was
 * ABANDONED, REJECTED_STALE, or is RUNNING under a lease that has ended. A claim that comes after it finds the fire
 * MISSED and does not run it.
 */
final class JdbcScheduleLedger implements ScheduleLedger {

    private final Jdbc jdbc;
    private final String insertIdle;
    private final String insertSchedule;
    private final String readSchedule;
    private final String sameSchedule;
    private final String replaceSchedule;
    private final String sweptUntil;
    private final String states;
    private final String lockJobs;
    private final String recordMissed;
    private final String swept;

    /** {@code queryTimeout}: the backstop per statement, the lease store's too ({@link dev.tenure.DatabaseConfig}). */
    JdbcScheduleLedger(DataSource dataSource, String schema, Duration queryTimeout) {
        this.jdbc = new Jdbc(dataSource, queryTimeout);
        String q = TenureSchema.quoted(schema);
        String js = q + ".job_schedule";
        String je = q + ".job_execution";
        String jr = q + ".job_run";
        insertIdle = "INSERT INTO " + je + " (job_key) VALUES (?) ON CONFLICT (job_key) DO NOTHING";
        insertSchedule = "INSERT INTO " + js + " (job_key, kind, expression, policy, integration, registered_by) "
                + "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (job_key) DO NOTHING";
        readSchedule = "SELECT kind, expression, policy, integration, registered_by, registered_at FROM " + js
                + " WHERE job_key = ? FOR UPDATE";
        sameSchedule = "UPDATE " + js + " SET policy = ?, integration = ?, registered_by = ?, "
                + "registered_at = clock_timestamp() WHERE job_key = ?";
        replaceSchedule = "UPDATE " + js + " SET previous_kind = kind, previous_expression = expression, "
                + "previous_by = registered_by, changed_at = clock_timestamp(), kind = ?, expression = ?, policy = ?, "
                + "integration = ?, registered_by = ?, registered_at = clock_timestamp() WHERE job_key = ?";
        sweptUntil = "SELECT job_key, swept_until FROM " + js + " WHERE job_key = ANY(?)";
        states = "SELECT d.ord, r.status, r.error, (je.fencing_token = r.epoch AND je.owner = r.owner "
                + "AND je.lease_expires_at > clock_timestamp()) "
                + "FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS d(job_key, fire_key, ord) "
                + "LEFT JOIN " + jr + " r ON r.job_key = d.job_key AND r.fire_key = d.fire_key "
                + "LEFT JOIN " + je + " je ON je.job_key = d.job_key";
        lockJobs = "SELECT job_key FROM " + je + " WHERE job_key = ANY(?) FOR NO KEY UPDATE SKIP LOCKED";
        recordMissed = "INSERT INTO " + jr + " AS r (run_id, job_key, fire_key, epoch, owner, status, started_at, "
                + "finished_at, error) "
                + "SELECT gen_random_uuid(), m.job_key, m.fire_key, je.fencing_token, ?, 'MISSED', clock_timestamp(), "
                + "clock_timestamp(), m.reason "
                + "FROM unnest(?::text[], ?::text[], ?::text[]) AS m(job_key, fire_key, reason) "
                + "JOIN " + je + " je ON je.job_key = m.job_key WHERE m.job_key = ANY(?) "
                + "ON CONFLICT (job_key, fire_key) DO UPDATE SET status = 'MISSED', run_id = excluded.run_id, "
                + "owner = excluded.owner, previous_run_id = r.run_id, previous_status = r.status, "
                + "finished_at = clock_timestamp(), error = excluded.error "
                + "WHERE r.status IN ('ABANDONED', 'REJECTED_STALE') OR (r.status = 'RUNNING' AND NOT EXISTS ("
                + "SELECT 1 FROM " + je + " x WHERE x.job_key = r.job_key AND x.fencing_token = r.epoch "
                + "AND x.owner = r.owner AND x.lease_expires_at > clock_timestamp())) "
                + "RETURNING r.job_key, r.fire_key";
        swept = "UPDATE " + js + " AS s SET swept_until = greatest(s.swept_until, m.until), next_due_at = m.next, "
                + "overdue = m.overdue, missed_total = s.missed_total + m.missed, last_missed_at = CASE WHEN m.missed > 0 "
                + "THEN clock_timestamp() ELSE s.last_missed_at END, swept_at = clock_timestamp(), swept_by = ? "
                + "FROM unnest(?::text[], ?::timestamptz[], ?::timestamptz[], ?::int[], ?::int[]) "
                + "AS m(job_key, until, next, overdue, missed) WHERE s.job_key = m.job_key";
    }

    @Override
    public Registered register(ScheduleRow row) {
        String key = JobLedger.key(row.jobKey());
        return jdbc.inTransaction("register schedule", key, c -> {
            update(c, insertIdle, key);
            if (update(
                            c,
                            insertSchedule,
                            key,
                            row.kind(),
                            row.expression(),
                            row.policy(),
                            row.integration(),
                            row.node())
                    == 1) {
                return new Registered(true, Optional.empty(), null);
            }
            ScheduleRow old;
            Instant at;
            try (PreparedStatement ps = jdbc.prepare(c, readSchedule)) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    old = new ScheduleRow(
                            key, rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5));
                    at = Rows.instant(rs, 6);
                }
            }
            if (old.kind().equals(row.kind()) && old.expression().equals(row.expression())) {
                update(c, sameSchedule, row.policy(), row.integration(), row.node(), key);
                return new Registered(false, Optional.empty(), at);
            }
            update(c, replaceSchedule, row.kind(), row.expression(), row.policy(), row.integration(), row.node(), key);
            return new Registered(false, Optional.of(old), at);
        });
    }

    private int update(Connection c, String sql, @Nullable String... values) throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setString(i + 1, values[i]);
            }
            return ps.executeUpdate();
        }
    }

    @Override
    public Map<String, Instant> sweptUntil(Collection<String> jobKeys) {
        String[] keys = jobKeys.toArray(String[]::new);
        return jdbc.run("read sweep positions", "*", false, c -> {
            Map<String, Instant> out = new HashMap<>();
            try (PreparedStatement ps = jdbc.prepare(c, sweptUntil)) {
                ps.setArray(1, c.createArrayOf("text", keys));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.put(rs.getString(1), Rows.instant(rs, 2));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public List<FireStatus> states(List<DueFire> fires) {
        String[] jobs = fires.stream().map(DueFire::jobKey).toArray(String[]::new);
        String[] keys = fires.stream().map(DueFire::fireKey).toArray(String[]::new);
        return jdbc.run("read fire states", "*", false, c -> {
            FireStatus[] out = new FireStatus[fires.size()];
            try (PreparedStatement ps = jdbc.prepare(c, states)) {
                ps.setArray(1, c.createArrayOf("text", jobs));
                ps.setArray(2, c.createArrayOf("text", keys));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        int i = (int) rs.getLong(1) - 1;
                        out[i] =
                                new FireStatus(fires.get(i), state(rs.getString(2), rs.getBoolean(4)), rs.getString(3));
                    }
                }
            }
            return List.of(out);
        });
    }

    private static FireState state(String status, boolean live) {
        if (status == null) {
            return FireState.NONE;
        }
        if (status.equals("RUNNING")) {
            return live ? FireState.RUNNING : FireState.RUNNING_LEASE_ENDED;
        }
        return FireState.valueOf(status);
    }

    @Override
    public List<DueFire> recordMissed(List<Missed> fires, String sweeper) {
        String[] jobs = fires.stream().map(m -> m.fire().jobKey()).toArray(String[]::new);
        String[] keys = fires.stream().map(m -> m.fire().fireKey()).toArray(String[]::new);
        String[] reasons = fires.stream().map(m -> truncate(m.reason())).toArray(String[]::new);
        String owner = truncate(sweeper, JobLedger.MAX_ID_LENGTH);
        Set<List<String>> done = jdbc.inTransaction("record missed fires", "*", c -> {
            List<String> locked = new ArrayList<>();
            try (PreparedStatement ps = jdbc.prepare(c, lockJobs)) {
                ps.setArray(1, c.createArrayOf("text", new HashSet<>(List.of(jobs)).toArray(String[]::new)));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        locked.add(rs.getString(1));
                    }
                }
            }
            Set<List<String>> recorded = new HashSet<>();
            if (locked.isEmpty()) {
                return recorded;
            }
            try (PreparedStatement ps = jdbc.prepare(c, recordMissed)) {
                ps.setString(1, owner);
                ps.setArray(2, c.createArrayOf("text", jobs));
                ps.setArray(3, c.createArrayOf("text", keys));
                ps.setArray(4, c.createArrayOf("text", reasons));
                ps.setArray(5, c.createArrayOf("text", locked.toArray(String[]::new)));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        recorded.add(List.of(rs.getString(1), rs.getString(2)));
                    }
                }
            }
            return recorded;
        });
        return fires.stream()
                .map(Missed::fire)
                .filter(f -> done.contains(List.of(f.jobKey(), f.fireKey())))
                .toList();
    }

    private static String truncate(String s) {
        return truncate(s, 2000);
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    @Override
    public void swept(List<SweepMark> marks, String sweeper) {
        if (marks.isEmpty()) {
            return;
        }
        String[] jobs = marks.stream().map(SweepMark::jobKey).toArray(String[]::new);
        String[] until = marks.stream().map(m -> m.sweptUntil().toString()).toArray(String[]::new);
        String[] next = marks.stream()
                .map(m -> m.nextDue() == null ? null : m.nextDue().toString())
                .toArray(String[]::new);
        Integer[] overdue = marks.stream().map(SweepMark::overdue).toArray(Integer[]::new);
        Integer[] missed = marks.stream().map(SweepMark::missed).toArray(Integer[]::new);
        jdbc.run("record sweep", "*", true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, swept)) {
                ps.setString(1, truncate(sweeper, JobLedger.MAX_ID_LENGTH));
                ps.setArray(2, c.createArrayOf("text", jobs));
                ps.setArray(3, c.createArrayOf("text", until));
                ps.setArray(4, c.createArrayOf("text", next));
                ps.setArray(5, c.createArrayOf("int4", overdue));
                ps.setArray(6, c.createArrayOf("int4", missed));
                return ps.executeUpdate();
            }
        });
    }
}
