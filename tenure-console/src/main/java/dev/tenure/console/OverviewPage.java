package dev.tenure.console;

import dev.tenure.db.OverdueFires;
import dev.tenure.db.TenureAdmin;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The overview: every job (holder, epoch, lease left, mode, last outcome, fires per hour; for a scheduled job its last
 * success, next fire due (PAUSED or RETIRED instead when it has none), fires recorded MISSED in the last hour and fires
 * overdue now with since when (by the database clock, whether or not a sweeper runs), highlighted when something needs a look: {@link ScheduleSection#needsAttention}) and the leader elections.
 */
final class OverviewPage {

    private static final String[] JOB_HEADERS = {
        "job",
        "kind",
        "holder (node)",
        "epoch",
        "lease left",
        "mode",
        "last outcome",
        "last fire",
        "fires / hour",
        "last success",
        "next due",
        "missed (1 h)",
        "overdue"
    };
    private static final String[] LEADER_HEADERS = {"role", "leader (node)", "epoch", "leader since", "lease left"};

    private OverviewPage() {}

    /** The page with the sweeper's overdue counts (as its last sweep left them). */
    static String render(
            String base,
            List<Views.Job> jobs,
            Map<String, TenureAdmin.ScheduleState> schedules,
            Map<String, ValkeyLeases.Lease> valkey,
            boolean valkeyGiven,
            List<Views.Leader> leaders,
            Optional<String> nextAfter,
            int refresh,
            Instant now) {
        return render(base, jobs, schedules, Map.of(), valkey, valkeyGiven, leaders, nextAfter, refresh, now);
    }

    /**
     * The page; {@code schedules} holds the schedules of those {@code jobs} that have one, by job key, and
     * {@code overdue} their fires overdue now ({@link TenureAdmin#overdue}: by the database clock, with or without a
     * live sweeper; a job missing from it shows the last sweep's count).
     */
    static String render(
            String base,
            List<Views.Job> jobs,
            Map<String, TenureAdmin.ScheduleState> schedules,
            Map<String, OverdueFires> overdue,
            Map<String, ValkeyLeases.Lease> valkey,
            boolean valkeyGiven,
            List<Views.Leader> leaders,
            Optional<String> nextAfter,
            int refresh,
            Instant now) {
        StringBuilder rows = new StringBuilder();
        for (Views.Job j : jobs) {
            TenureAdmin.ScheduleState st = schedules.get(j.jobKey());
            OverdueFires late = overdue.get(j.jobKey());
            boolean attention = st != null && ScheduleSection.needsAttention(st, late);
            boolean due = st != null && !st.paused() && !st.retired(); // a paused or retired schedule has no due fires
            rows.append("<tr class=\"")
                    .append(j.held() ? "held" : "free")
                    .append(attention ? " attention" : "")
                    .append("\"><td><a href=\"")
                    .append(Html.esc(base))
                    .append("/job?key=")
                    .append(Html.esc(Html.url(j.jobKey())))
                    .append("\">")
                    .append(Html.esc(j.jobKey()))
                    .append("</a></td>")
                    .append(Layout.td(j.kind(), null))
                    .append(Layout.td(j.held() ? j.node() : "nobody", j.held() ? "holder" : "muted"))
                    .append(Layout.td(j.epoch(), "num"))
                    .append(Layout.td(j.held() ? Html.duration(j.leaseLeft()) : "", "num"))
                    .append(Layout.td(Modes.of(j, valkey.get(j.jobKey()), valkeyGiven), null))
                    .append(Layout.status(j.lastStatus()))
                    .append(Layout.td(j.lastFireKey(), null))
                    .append(Layout.td(fires(j), "num"))
                    .append(Layout.td(st == null ? "" : Html.time(st.lastSuccessAt()), null))
                    .append(Layout.td(
                            st == null ? "" : due ? Html.time(st.nextDueAt()) : st.state(),
                            st != null && !due ? "muted" : null))
                    .append(Layout.td(
                            st == null ? "" : missed(st), st != null && st.missedLastHour() > 0 ? "num alert" : "num"))
                    .append(overdueCell(st, late, due))
                    .append("</tr>");
        }
        StringBuilder live = new StringBuilder("<section><h2>Jobs</h2>")
                .append(Layout.table("jobs", JOB_HEADERS, rows, "No jobs yet: Tenure's tables are empty."));
        nextAfter.ifPresent(a -> live.append("<p class=\"more\"><a href=\"")
                .append(Html.esc(base))
                .append("/?after=")
                .append(Html.esc(Html.url(a)))
                .append("\">more jobs →</a></p>"));
        live.append("</section><section><h2>Leader elections</h2>")
                .append(leaders(leaders))
                .append("</section>");
        return Layout.page(base, "jobs", live.toString(), "", refresh, now);
    }

    /** The overdue cell: {@code 22 since <time>} (or {@code 1+ since …}) in red; the last sweep's count without one. */
    private static String overdueCell(TenureAdmin.ScheduleState st, OverdueFires late, boolean due) {
        if (st == null) {
            return Layout.td("", "num");
        }
        if (late == null) {
            return Layout.td(st.overdue(), due && st.overdue() > 0 ? "num alert" : "num");
        }
        return Layout.td(overdue(late), due && late.any() ? "num alert" : "num");
    }

    /**
     * {@code 0}, {@code 22 since 2026-12-07 05:51:00.000Z}, or {@code 1+ since …} for a lower bound ({@code 0+} when the
     * account is behind and this process cannot walk the schedule).
     */
    static String overdue(OverdueFires late) {
        return !late.any()
                ? late.shown()
                : late.shown() + (late.since() == null ? "" : " since " + Html.time(late.since()));
    }

    /** Fires recorded MISSED in the last hour, "≥ cap" when capped. */
    static Object missed(TenureAdmin.ScheduleState st) {
        return st.missedLastHour() >= TenureAdmin.MISSED_CAP ? "≥ " + TenureAdmin.MISSED_CAP : st.missedLastHour();
    }

    static Object fires(Views.Job j) {
        if (j.kind().equals("role")) {
            return "";
        }
        return j.firesLastHour() >= ConsoleQueries.FIRES_CAP ? "≥ " + ConsoleQueries.FIRES_CAP : j.firesLastHour();
    }

    private static String leaders(List<Views.Leader> leaders) {
        StringBuilder rows = new StringBuilder();
        for (Views.Leader l : leaders) {
            rows.append("<tr><td>")
                    .append(Html.esc(l.role()))
                    .append("</td>")
                    .append(Layout.td(
                            l.leader() == null ? "none (lease ended)" : l.leaderNode(),
                            l.leader() == null ? "muted" : "holder"))
                    .append(Layout.td(l.epoch(), "num"))
                    .append(Layout.td(Html.time(l.since()), null))
                    .append(Layout.td(Html.duration(l.leaseLeft()), "num"))
                    .append("</tr>");
        }
        return Layout.table("leaders", LEADER_HEADERS, rows, "No roles.")
                + "<p class=\"note\">How roles are told from jobs: a leader election is a job_execution row too, and its "
                + "epoch is the leadership's; roles are the rows that have no job_run rows (an election never records runs). A "
                + "plain database lease (tenure.databaseLeases()) and a job that has not run yet have no runs either, so "
                + "they are listed here as well.</p>";
    }
}
