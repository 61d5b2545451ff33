package dev.tenure;

import dev.tenure.spi.ScheduleLedger;
import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.Tracked;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the sweeps of one {@link Sweeper} recorded, as log lines under {@code dev.tenure.MissedFires}: one WARN per job
 * a sweep recorded MISSED fires of (with the reasons counted), one line for the jobs past the first ten, one INFO for a
 * sweep's catch-ups, and the overdue fires of an alert-only job at most once a minute. Used on the sweep thread only.
 */
final class SweepLog {

    /**
     * What a sweep recorded, one WARN line per job (at most {@value #JOB_LINES} jobs a sweep, then one line for the
     * rest), and one INFO line for its catch-ups, however many fires.
     */
    void report(SweepRound.Result r) {
        List<MissedReport> reports = new ArrayList<>(missedReports.values());
        missedReports.clear();
        reports.sort(Comparator.comparingLong(MissedReport::fires).reversed().thenComparing(MissedReport::jobKey));
        for (int i = 0; i < reports.size() && i < JOB_LINES; i++) {
            Sweeper.LOG.warn("{}", reports.get(i));
        }
        if (reports.size() > JOB_LINES) {
            List<MissedReport> rest = reports.subList(JOB_LINES, reports.size());
            Sweeper.LOG.warn(
                    "and {} fire(s) of {} more job(s) recorded MISSED in this sweep: {} (each with why in the ledger: "
                            + "`tenure-console missed`)",
                    rest.stream().mapToLong(MissedReport::fires).sum(),
                    rest.size(),
                    first(rest, 10));
        }
        if (!r.catchUps().isEmpty()) {
            Map<String, Long> byJob = new java.util.TreeMap<>();
            r.catchUps().forEach(f -> byJob.merge(f.jobKey(), 1L, Long::sum));
            Sweeper.LOG.info(
                    "catching up {} fire(s) of {} job(s): {}", r.catchUps().size(), byJob.size(), first(byJob, 10));
        }
    }

    /** Jobs a sweep logs a line each for. */
    static final int JOB_LINES = 10;

    /** What one sweep recorded MISSED of one job (sweep thread). */
    private static final class MissedReport {
        private final String jobKey;
        private final String policy;
        private long fires;
        private @Nullable Instant first;
        private @Nullable Instant last;
        private final Map<String, Long> reasons = new java.util.LinkedHashMap<>();

        MissedReport(String jobKey, String policy) {
            this.jobKey = jobKey;
            this.policy = policy;
        }

        String jobKey() {
            return jobKey;
        }

        long fires() {
            return fires;
        }

        void add(Instant from, Instant until, long n, String reason) {
            fires += n;
            first = first == null || from.isBefore(first) ? from : first;
            last = last == null || until.isAfter(last) ? until : last;
            // a row says "ran it", a summary "ran them": one reason
            reasons.merge(reason.replace("no node ran it;", "no node ran them;"), n, Long::sum);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder()
                    .append(fires)
                    .append(fires == 1 ? " fire of '" : " fires of '")
                    .append(jobKey)
                    .append("' recorded MISSED, ")
                    .append(first)
                    .append(fires == 1 ? "" : ".." + last)
                    .append(", policy ")
                    .append(policy)
                    .append(", ");
            int i = 0;
            for (Map.Entry<String, Long> e : reasons.entrySet()) {
                if (i == 3) {
                    b.append(" | and ").append(reasons.size() - 3).append(" other reason(s)");
                    break;
                }
                b.append(i++ == 0 ? "why: " : " | ");
                if (reasons.size() > 1) {
                    b.append('[').append(e.getValue()).append("] ");
                }
                b.append(e.getKey());
            }
            return b.append(" (each fire with why in the ledger: `tenure-console missed`)")
                    .toString();
        }
    }

    private final Map<String, MissedReport> missedReports = new java.util.HashMap<>();
    /** When each job's overdue fires under ALERT_ONLY were last logged (nanoTime; sweep thread). */
    private final Map<String, Long> alertLogged = new java.util.HashMap<>();

    /** Called for each plan a sweep round settled. */
    void missed(Tracked t, FirePlan p, Set<DueFire> recorded, boolean summariesWritten) {
        MissedReport report = null;
        if (summariesWritten) {
            for (ScheduleLedger.Summary s : p.summaries()) {
                if (s.fires() > 0) {
                    report = missedReports.computeIfAbsent(
                            p.jobKey(), k -> new MissedReport(k, Sweeper.describe(t.policy())));
                    String why = s.reason();
                    int cut = why.indexOf(" missed: ");
                    report.add(
                            s.first(), s.last(), s.fires(), cut < 0 ? why : why.substring(cut + " missed: ".length()));
                }
            }
        }
        for (var m : p.rows()) {
            if (recorded.contains(m.fire())) {
                Sweeper.LOG.debug(
                        "job '{}': fire {} is recorded MISSED: {}", p.jobKey(), Sweeper.label(m.fire()), m.reason());
                missedReports
                        .computeIfAbsent(p.jobKey(), k -> new MissedReport(k, Sweeper.describe(t.policy())))
                        .add(m.fire().dueAt(), m.fire().dueAt(), 1, m.reason());
            }
        }
        if (t.policy().action() == MissedFirePolicy.Action.ALERT_ONLY) {
            alertOnly(p);
        }
    }

    /**
     * ALERT_ONLY runs nothing: its overdue fires are logged, at most once a minute per job, so that someone runs them
     * by hand (the meter {@code tenure.fire.overdue} and health say it between the lines).
     */
    private void alertOnly(FirePlan p) {
        if (p.open().isEmpty()) {
            alertLogged.remove(p.jobKey());
            return;
        }
        long now = System.nanoTime();
        Long last = alertLogged.get(p.jobKey());
        if (last != null && now - last < Sweeper.LOG_EVERY_NANOS) {
            return;
        }
        alertLogged.put(p.jobKey(), now);
        List<DueFire> open = p.open();
        Sweeper.LOG.warn(
                "job '{}': {} fire(s) overdue and not run, {}{}: policy alert-only runs none of them; run them by hand "
                        + "(`tenure-console missed`, the console's job page lists them). Logged at most once a minute.",
                p.jobKey(),
                open.size(),
                Sweeper.label(open.get(0)),
                open.size() == 1 ? "" : ".." + Sweeper.label(open.get(open.size() - 1)));
    }

    private static String first(List<MissedReport> reports, int max) {
        Map<String, Long> counts = new java.util.LinkedHashMap<>();
        reports.forEach(r -> counts.put(r.jobKey(), r.fires()));
        return first(counts, max);
    }

    private static String first(Map<String, Long> counts, int max) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            if (i == max) {
                b.append(", and ").append(counts.size() - max).append(" more");
                break;
            }
            b.append(i++ == 0 ? "" : ", ")
                    .append(e.getKey())
                    .append(" (")
                    .append(e.getValue())
                    .append(')');
        }
        return b.toString();
    }
}
