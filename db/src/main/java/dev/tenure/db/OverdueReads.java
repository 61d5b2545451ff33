package dev.tenure.db;

import dev.tenure.Schedule;
import dev.tenure.spi.ScheduleLedger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Counts overdue fires from the ledger alone ({@link OverdueFires}), so that a stopped fleet shows them: one statement
 * reads the schedules with the database clock and the spans that still matter, the slots after each account's
 * {@code swept_until} are walked here, and one statement reads the runs of the walked fires. Thread-safe.
 *
 * <p>The walk is a small one of its own: the sweeper's {@code FireWalk} is package-private in the core (it also
 * settles, plans and bounds a whole sweep). Like it, it walks the previous version up to the current one's start,
 * skips fires inside PAUSED and RETIRED spans, and asks a schedule that does not move forward again a second later.
 */
final class OverdueReads {

    private static final Duration NUDGE = Duration.ofSeconds(1);

    private final Jdbc jdbc;
    private final String schedules;
    private final String spans;
    private final String runs;

    OverdueReads(Jdbc jdbc, String quotedSchema) {
        this.jdbc = jdbc;
        String js = quotedSchema + ".job_schedule";
        schedules = """
                SELECT s.job_key, s.state, s.kind, s.expression, s.grace_ms, s.swept_until, s.next_due_at, s.overdue,
                    s.version_from, pv.kind, pv.expression, pv.valid_from, clock_timestamp()
                FROM %1$s s LEFT JOIN %2$s.job_schedule_version pv ON pv.job_key = s.job_key AND pv.version = s.version - 1
                WHERE s.job_key = ANY(?)""".formatted(js, quotedSchema);
        spans = """
                SELECT sp.job_key, sp.state, sp.from_at, sp.until_at, sp.reason
                FROM %2$s.job_schedule_span sp JOIN %1$s s ON s.job_key = sp.job_key
                WHERE sp.job_key = ANY(?) AND (sp.until_at IS NULL OR sp.until_at > s.swept_until)""".formatted(js, quotedSchema);
        // a fire is accounted for when its run COMPLETED, FAILED or was recorded MISSED, and not overdue while it runs
        // under a live lease (the sweeper's rule: FireState.settled and RUNNING)
        runs = """
                SELECT d.job_key, d.fire_key
                FROM unnest(?::text[], ?::text[]) AS d(job_key, fire_key)
                JOIN %1$s.job_runs r ON r.job_key = d.job_key AND r.fire_key = d.fire_key
                WHERE r.status IN ('COMPLETED', 'FAILED', 'MISSED') OR (r.status = 'RUNNING' AND EXISTS (
                    SELECT 1 FROM %1$s.job_execution x WHERE x.job_key = r.job_key AND x.fencing_token = r.epoch
                    AND x.owner = r.owner AND x.lease_expires_at > clock_timestamp()))""".formatted(quotedSchema);
    }

    /** One schedule as read, and its candidate fires once walked. */
    private static final class Row {
        String jobKey = "";
        String state = "";
        String kind = "";
        String expression = "";
        Duration grace = Duration.ZERO;
        Instant sweptUntil = Instant.EPOCH;

        @Nullable
        Instant nextDueAt;

        int stored;

        @Nullable
        Instant versionFrom;

        @Nullable
        String previousKind;

        @Nullable
        String previousExpression;

        @Nullable
        Instant previousFrom;

        Instant at = Instant.EPOCH;
        final List<ScheduleLedger.Span> spans = new ArrayList<>();
        /** The fires walked, oldest first (fire key to due time); null when they could not be walked. */
        @Nullable
        Map<String, Instant> fires;

        boolean exact = true;
    }

    Map<String, OverdueFires> overdue(String[] jobKeys, Map<String, Function<String, Schedule>> readers) {
        Map<String, Row> rows = read(jobKeys);
        List<String> jobs = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        for (Row r : rows.values()) {
            if (!r.state.equals(ScheduleLedger.ACTIVE)) {
                continue;
            }
            walk(r, readers);
            Map<String, Instant> fires = r.fires;
            if (fires == null) {
                // no reader here: only the fire at next_due_at can be named
                Instant next = r.nextDueAt;
                if (next != null && !next.isAfter(r.at.minus(r.grace)) && next.isAfter(r.sweptUntil)) {
                    jobs.add(r.jobKey);
                    keys.add(next.toString());
                }
            } else {
                fires.keySet().forEach(k -> {
                    jobs.add(r.jobKey);
                    keys.add(k);
                });
            }
        }
        Map<String, Set<String>> accounted = accounted(jobs, keys);
        Map<String, OverdueFires> out = new LinkedHashMap<>();
        for (Row r : rows.values()) {
            out.put(r.jobKey, result(r, accounted.getOrDefault(r.jobKey, Set.of())));
        }
        return out;
    }

    private static OverdueFires result(Row r, Set<String> accounted) {
        if (!r.state.equals(ScheduleLedger.ACTIVE)) {
            return OverdueFires.none(r.jobKey, r.stored, r.at); // paused and retired schedules have no due fires
        }
        Map<String, Instant> fires = r.fires;
        if (fires == null) {
            Instant next = r.nextDueAt;
            Instant due = next != null
                            && !next.isAfter(r.at.minus(r.grace))
                            && next.isAfter(r.sweptUntil)
                            && !accounted.contains(next.toString())
                    ? next
                    : null;
            // a lower bound: at least the fire at next_due_at, or what the last sweep counted if that is more
            long n = Math.max(r.stored, due != null ? 1 : 0);
            // the fire at next_due_at ran, but the account stands before it (no sweeper moved it on): fires after it
            // may be overdue, and without a reader nobody here can name them: "0+", not a plain 0
            boolean behind = next != null
                    && next.isAfter(r.sweptUntil)
                    && !next.isAfter(r.at.minus(r.grace))
                    && accounted.contains(next.toString());
            return n == 0 && !behind
                    ? OverdueFires.none(r.jobKey, r.stored, r.at)
                    : new OverdueFires(
                            r.jobKey, n, false, due, due != null ? List.of(due.toString()) : List.of(), r.stored, r.at);
        }
        List<String> open = new ArrayList<>();
        Instant since = null;
        for (Map.Entry<String, Instant> f : fires.entrySet()) {
            if (!accounted.contains(f.getKey())) {
                if (since == null) {
                    since = f.getValue();
                }
                if (open.size() < OverdueFires.LISTED) {
                    open.add(f.getKey());
                }
            }
        }
        long n = fires.size() - accounted.size();
        // Exact: the walk covers every fire after swept_until (the sweeper's own open fires are among them), and reads
        // their runs now, so it supersedes the count of the last sweep. A lower bound: at least the last sweep's count.
        if (!r.exact) {
            n = Math.max(n, r.stored);
        }
        return n == 0
                ? OverdueFires.none(r.jobKey, r.stored, r.at)
                : new OverdueFires(r.jobKey, n, r.exact, since, open, r.stored, r.at);
    }

    /** The fires due after swept_until and at or before now minus the grace, outside the spans; null without a reader. */
    private static void walk(Row r, Map<String, Function<String, Schedule>> readers) {
        Instant to = r.at.minus(r.grace);
        if (!to.isAfter(r.sweptUntil)) {
            r.fires = new LinkedHashMap<>();
            return;
        }
        try {
            Schedule current = read(readers, r.kind, r.expression);
            if (current == null) {
                return;
            }
            Map<String, Instant> fires = new LinkedHashMap<>();
            Instant from = r.sweptUntil;
            Instant versionFrom = r.versionFrom;
            if (versionFrom != null && versionFrom.isAfter(from)) {
                String pk = r.previousKind;
                String pe = r.previousExpression;
                Schedule previous = pk == null || pe == null ? null : read(readers, pk, pe);
                Instant previousFrom = r.previousFrom;
                if (previous == null || (previousFrom != null && previousFrom.isAfter(from))) {
                    r.exact = false; // an older version, or one this process cannot read: its fires are not counted
                } else {
                    walk(r, previous, from, versionFrom.isBefore(to) ? versionFrom : to, true, fires);
                }
                from = versionFrom.minusNanos(1);
            }
            walk(r, current, from, to, false, fires);
            r.fires = fires;
        } catch (RuntimeException e) {
            r.fires = null; // a schedule that throws: the fallback below (the sweep error says why)
            r.exact = false;
        }
    }

    private static void walk(Row r, Schedule s, Instant after, Instant to, boolean before, Map<String, Instant> into) {
        Instant t = after;
        while (into.size() < OverdueFires.MAX_WALK) {
            Optional<Instant> next = s.nextAfter(t);
            if (next.isPresent() && !next.get().isAfter(t)) {
                next = s.nextAfter(t.plus(NUDGE));
                if (next.isPresent() && !next.get().isAfter(t)) {
                    r.exact = false; // it does not move forward: the sweep error says more
                    return;
                }
            }
            if (next.isEmpty()
                    || (before ? !next.get().isBefore(to) : next.get().isAfter(to))) {
                return;
            }
            t = next.get();
            if (!covered(r.spans, t)) {
                into.put(s.fireKey(t), t);
            }
        }
        r.exact = false; // cut: a longer backlog than one read walks
    }

    private static boolean covered(List<ScheduleLedger.Span> spans, Instant t) {
        return spans.stream().anyMatch(s -> s.covers(t));
    }

    private static @Nullable Schedule read(Map<String, Function<String, Schedule>> readers, String kind, String text) {
        Function<String, Schedule> reader = readers.get(kind);
        return reader == null ? null : reader.apply(text);
    }

    private Map<String, Row> read(String[] jobKeys) {
        return jdbc.run("read overdue fires", "*", false, c -> {
            Map<String, Row> rows = new LinkedHashMap<>();
            try (ResultSet rs = query(c, schedules, jobKeys)) {
                while (rs.next()) {
                    Row r = new Row();
                    r.jobKey = rs.getString(1);
                    r.state = rs.getString(2);
                    r.kind = rs.getString(3);
                    r.expression = rs.getString(4);
                    r.grace = Duration.ofMillis(rs.getLong(5));
                    r.sweptUntil = Rows.at(rs, 6);
                    r.nextDueAt = Rows.instant(rs, 7);
                    r.stored = rs.getInt(8);
                    r.versionFrom = Rows.instant(rs, 9);
                    r.previousKind = rs.getString(10);
                    r.previousExpression = rs.getString(11);
                    r.previousFrom = Rows.instant(rs, 12);
                    r.at = Rows.at(rs, 13);
                    rows.put(r.jobKey, r);
                }
            }
            try (ResultSet rs = query(c, spans, jobKeys)) {
                while (rs.next()) {
                    Row r = rows.get(rs.getString(1));
                    if (r != null) {
                        r.spans.add(new ScheduleLedger.Span(
                                rs.getString(2), Rows.at(rs, 3), Rows.instant(rs, 4), rs.getString(5)));
                    }
                }
            }
            return rows;
        });
    }

    /** The fire keys of {@code keys} (each of the job at the same index) that are accounted for, by job. */
    private Map<String, Set<String>> accounted(List<String> jobs, List<String> keys) {
        if (jobs.isEmpty()) {
            return Map.of();
        }
        return jdbc.run("read overdue fires' runs", "*", false, c -> {
            Map<String, Set<String>> out = new HashMap<>();
            try (PreparedStatement ps = jdbc.prepare(c, runs)) {
                ps.setArray(1, c.createArrayOf("text", jobs.toArray()));
                ps.setArray(2, c.createArrayOf("text", keys.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.computeIfAbsent(rs.getString(1), k -> new HashSet<>())
                                .add(rs.getString(2));
                    }
                }
            }
            return out;
        });
    }

    private ResultSet query(Connection c, String sql, String[] jobKeys) throws SQLException {
        PreparedStatement ps = jdbc.prepare(c, sql);
        ps.closeOnCompletion();
        ps.setArray(1, c.createArrayOf("text", jobKeys));
        return ps.executeQuery();
    }
}
