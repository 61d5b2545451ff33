package dev.tenure.bench.coordinated;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The scale benchmark's account of a window's fires, read from Tenure's ledger and the business table after the
 * nodes stopped: every fire due in the window must have run exactly once (one COMPLETED run, one business row) or be
 * recorded MISSED by the sweeper. Its start delay is the run's recorded start ({@code job_run.started_at}, the
 * database's clock) minus the fire time. Reads on a connection of its own to the benchmark database.
 */
final class ScaleLedger {

    /** How many fires of each kind of problem are listed by name. */
    private static final int LISTED = 10;

    private final String url;
    private final String user;

    ScaleLedger(String url, String user) {
        this.url = url;
        this.user = user;
    }

    /**
     * The account of the window's fires.
     *
     * @param due          fires due in the window
     * @param ran          COMPLETED with a business row (more than one: see duplicates)
     * @param duplicates   business rows beyond the first of a (job, fire) in the whole row, warm-up included
     * @param missed       recorded MISSED by the sweeper, with no business row
     * @param open         neither: no run, or a run that did not complete (silently missing)
     * @param inconsistent COMPLETED without a business row, or MISSED with one
     * @param delay        start delay of the fires that ran, microseconds
     * @param problems     the first fires of each kind of problem (duplicate, MISSED, open, inconsistent), by name
     * @param overdue      fires the sweeper reported overdue at its last sweep (job_schedule.overdue), all jobs
     */
    record Account(
            long due,
            long ran,
            long duplicates,
            long missed,
            long open,
            long inconsistent,
            Histogram delay,
            Map<String, List<String>> problems,
            long overdue) {}

    /**
     * Waits until the sweeper has accounted for every fire due before {@code w1}: each job's {@code swept_until} has
     * reached its last fire in the window. Returns the seconds it took after {@code w1}, or NaN after {@code bound}.
     */
    double awaitSwept(SlotSchedule[] schedules, long w1, Duration bound) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        try (Connection c = DriverManager.getConnection(url, user, null);
                Statement s = c.createStatement()) {
            while (true) {
                Map<String, Long> swept = new HashMap<>();
                try (ResultSet rs = s.executeQuery("SELECT job_key, (extract(epoch FROM swept_until) * 1000)::bigint "
                        + "FROM tenure.job_schedule WHERE job_key LIKE 'job-%'")) {
                    while (rs.next()) {
                        swept.put(rs.getString(1), rs.getLong(2));
                    }
                }
                long behind = 0;
                for (int j = 0; j < schedules.length; j++) {
                    long last = schedules[j].firstAtOrAfter(w1)
                            - schedules[j].period().toMillis();
                    if (swept.getOrDefault("job-" + j, Long.MIN_VALUE) < last) {
                        behind++;
                    }
                }
                if (behind == 0) {
                    return Math.max(0, System.currentTimeMillis() - w1) / 1000.0;
                }
                if (System.nanoTime() > deadline) {
                    return Double.NaN;
                }
                Thread.sleep(500);
            }
        }
    }

    /** The account of the fires due in [w0, w1) after the nodes stopped; {@code table} is the row's business table. */
    Account account(SlotSchedule[] schedules, long w0, long w1, String table) throws SQLException {
        Map<String, Long> dueAt = new HashMap<>(); // "job/fire time" -> fire time
        for (int j = 0; j < schedules.length; j++) {
            long p = schedules[j].period().toMillis();
            for (long f = schedules[j].firstAtOrAfter(w0); f < w1; f += p) {
                dueAt.put("job-" + j + "/" + f, f);
            }
        }
        Map<String, String> status = new HashMap<>();
        Map<String, Double> started = new HashMap<>();
        Map<String, Long> effects = new HashMap<>();
        long duplicates = 0;
        long overdue;
        Map<String, List<String>> problems = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(url, user, null);
                Statement s = c.createStatement()) {
            try (ResultSet rs =
                    s.executeQuery("SELECT job_key, fire_key, status, extract(epoch FROM started_at) * 1000 "
                            + "FROM tenure.job_run WHERE job_key LIKE 'job-%' AND fire_key NOT LIKE 'history-%'")) {
                while (rs.next()) {
                    String k = key(rs.getString(1), rs.getString(2));
                    if (k != null && dueAt.containsKey(k)) {
                        status.put(k, rs.getString(3));
                        started.put(k, rs.getDouble(4));
                    }
                }
            }
            try (ResultSet rs = s.executeQuery(
                    "SELECT coalesce(sum(overdue), 0) FROM tenure.job_schedule " + "WHERE job_key LIKE 'job-%'")) {
                rs.next();
                overdue = rs.getLong(1);
            }
            try (ResultSet rs = s.executeQuery("SELECT job, fire, count(*) FROM " + table + " GROUP BY job, fire")) {
                while (rs.next()) {
                    long n = rs.getLong(3);
                    duplicates += n - 1;
                    if (n > 1) {
                        List<String> l = problems.computeIfAbsent("duplicate", x -> new ArrayList<>());
                        if (l.size() < LISTED) {
                            l.add(rs.getString(1) + " fire " + rs.getString(2) + ": " + n + " business rows");
                        }
                    }
                    String k = key(rs.getString(1), rs.getString(2));
                    if (k != null && dueAt.containsKey(k)) {
                        effects.put(k, n);
                    }
                }
            }
        }
        long ran = 0;
        long missed = 0;
        long open = 0;
        long inconsistent = 0;
        Histogram delay = new Histogram(3_600_000_000L, 3);
        for (Map.Entry<String, Long> e : new TreeMap<>(dueAt).entrySet()) {
            String k = e.getKey();
            String st = status.get(k);
            long n = effects.getOrDefault(k, 0L);
            String kind;
            String what;
            if ("COMPLETED".equals(st) && n >= 1) {
                ran++;
                delay.recordValue(Math.max(0, Math.round((started.get(k) - e.getValue()) * 1000)));
                kind = null; // a duplicate is listed from the business table, window or not
                what = null;
            } else if ("MISSED".equals(st) && n == 0) {
                missed++;
                kind = "MISSED";
                what = "recorded MISSED";
            } else if ("COMPLETED".equals(st) || "MISSED".equals(st)) {
                inconsistent++;
                kind = "inconsistent";
                what = st + " with " + n + " business rows";
            } else {
                open++;
                kind = "open";
                what = "neither run nor MISSED (" + (st == null ? "no run" : st) + ", " + n + " business rows)";
            }
            if (kind != null) {
                List<String> l = problems.computeIfAbsent(kind, x -> new ArrayList<>());
                if (l.size() < LISTED) {
                    l.add(k.substring(0, k.indexOf('/')) + " fire " + Instant.ofEpochMilli(e.getValue()) + ": " + what);
                }
            }
        }
        return new Account(dueAt.size(), ran, duplicates, missed, open, inconsistent, delay, problems, overdue);
    }

    /** "job/fire time in ms" for a fire key that is an instant, else null (history and priming rows). */
    private static String key(String job, String fire) {
        try {
            return job + "/" + Instant.parse(fire).toEpochMilli();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
