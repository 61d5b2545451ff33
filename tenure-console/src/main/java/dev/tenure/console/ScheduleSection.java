package dev.tenure.console;

import dev.tenure.db.TenureAdmin;

/**
 * The job page's schedule section: the job's schedule as the ledger records it (kind and expression, policy,
 * integration, who registered it and when, a replaced schedule when two versions of the application disagreed) and
 * the sweeper's account of its fires (last success, next due, overdue, missed in the last hour and in all, how far it
 * swept). Every value is escaped.
 */
final class ScheduleSection {

    private ScheduleSection() {}

    /** The section for {@code st}: highlighted when fires are overdue or were missed in the last hour. */
    static String render(TenureAdmin.ScheduleState st) {
        boolean attention = st.overdue() > 0 || st.missedLastHour() > 0;
        StringBuilder s = new StringBuilder("<section class=\"schedule")
                .append(attention ? " attention" : "")
                .append("\"><h2>Schedule</h2><dl>")
                .append(item("schedule", st.kind() + " " + st.expression()))
                .append(item("policy", st.policy()))
                .append(item("integration", st.integration()))
                .append(item("registered by", st.registeredBy()))
                .append(item("registered at", Html.time(st.registeredAt())));
        if (st.previousSchedule() != null) {
            s.append("<dt>replaced schedule</dt><dd class=\"alert\">")
                    .append(Html.esc(st.previousSchedule()))
                    .append(" (registered by ")
                    .append(Html.esc(st.previousBy()))
                    .append("; replaced at ")
                    .append(Html.esc(Html.time(st.changedAt())))
                    .append(": two versions of the application disagree)</dd>");
        }
        s.append(item("last success", Html.time(st.lastSuccessAt())))
                .append(item("next due", Html.time(st.nextDueAt())))
                .append(alert("overdue at the last sweep", st.overdue()))
                .append(alert("missed in the last hour", OverviewPage.missed(st)))
                .append(item("missed in all", st.missedTotal()))
                .append(item("last missed", Html.time(st.lastMissedAt())))
                .append(item(
                        "swept until",
                        Html.time(st.sweptUntil())
                                + (st.sweptAt() == null
                                        ? ""
                                        : " (at " + Html.time(st.sweptAt()) + " by " + st.sweptBy() + ")")));
        return s.append(
                        "</dl><p class=\"note\">Every fire due up to \"swept until\" is accounted for: COMPLETED, FAILED "
                                + "or MISSED. The sweeper catches overdue fires up or records them MISSED by the policy.</p></section>")
                .toString();
    }

    private static String item(String name, Object value) {
        return JobPage.item(name, value);
    }

    /** A value that is highlighted unless it is 0. */
    private static String alert(String name, Object value) {
        boolean some = !"0".equals(String.valueOf(value));
        return "<dt>" + Html.esc(name) + "</dt><dd" + (some ? " class=\"alert\"" : "") + ">" + Html.esc(value)
                + "</dd>";
    }
}
