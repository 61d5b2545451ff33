package dev.tenure.console;

import dev.tenure.Tenure;
import dev.tenure.db.OverdueFires;
import dev.tenure.db.ScheduleHistory;
import dev.tenure.db.TenureAdmin;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The job page's schedule section: the job's schedule as the ledger records it (its state, since when, why and by
 * whom; the application that registers it; kind and expression and its version; policy, integration, who registered
 * it and when, the schedule that the current version replaced; when a live process last marked
 * it), what needs an operator's eye, the sweeper's account of its fires (last success, next due, overdue, missed in
 * the last hour and in all, how far it swept, when it looks next, why its sweep fails), and its history: every version
 * and the spans in which it was paused or retired. Every value is escaped.
 */
final class ScheduleSection {

    /** Fires recorded MISSED this recently, and a check time this far behind, are shown as needing attention. */
    static final Duration MISSED_WITHIN = Duration.ofHours(1);

    static final Duration UNSWEPT_AFTER = TenureAdmin.unsweptAfter(Tenure.DEFAULT_SWEEP_INTERVAL);

    private static final String[] VERSION_HEADERS = {"version", "schedule", "from", "until", "registered by"};
    private static final String[] SPAN_HEADERS = {"state", "from", "until", "why", "set by"};

    private ScheduleSection() {}

    /** The section for {@code st} without its history. */
    static String render(TenureAdmin.ScheduleState st) {
        return render(st, new ScheduleHistory(st.jobKey(), List.of(), List.of()));
    }

    /** The section for {@code st} with the last sweep's overdue count. */
    static String render(TenureAdmin.ScheduleState st, ScheduleHistory history) {
        return render(st, history, null, List.of());
    }

    /**
     * The section for {@code st}: highlighted when something needs attention ({@link #attention}); {@code overdue}: the
     * fires overdue now (null: only the last sweep's count is known), listed by fire key; {@code missed}: the latest
     * fires recorded MISSED, listed with why.
     */
    static String render(
            TenureAdmin.ScheduleState st,
            ScheduleHistory history,
            OverdueFires overdue,
            List<TenureAdmin.MissedFire> missed) {
        List<String> why = attention(st, overdue);
        StringBuilder s = new StringBuilder("<section class=\"schedule")
                .append(needsAttention(st, overdue) ? " attention" : "")
                .append("\"><h2>Schedule</h2><dl>")
                .append("<dt>state</dt><dd class=\"state-")
                .append(Html.esc(st.state()))
                .append("\">")
                .append(Html.esc(state(st)))
                .append("</dd>")
                .append(item("application", st.application()))
                .append(item("schedule", st.kind() + " " + st.expression()))
                .append(item("version", version(st)))
                .append(item("policy", st.policy()))
                .append(item("integration", st.integration()))
                .append(item("registered by", st.registeredBy()))
                .append(item("registered at", Html.time(st.registeredAt())))
                .append(item("last seen", seen(st)));
        if (st.previousSchedule() != null) {
            s.append("<dt>replaced schedule</dt><dd>")
                    .append(Html.esc(st.previousSchedule()))
                    .append(" (registered by ")
                    .append(Html.esc(st.previousBy()))
                    .append("; replaced at ")
                    .append(Html.esc(Html.time(st.changedAt())))
                    .append(" by version ")
                    .append(st.version())
                    .append(": instances still on the earlier version fire by it until they are replaced)</dd>");
        }
        s.append(item("last success", Html.time(st.lastSuccessAt())))
                .append(item("next due", Html.time(st.nextDueAt())))
                .append(overdueNow(st, overdue))
                .append(alert("overdue at the last sweep", st.overdue(), !st.retired() && overdue == null))
                .append(alert("missed in the last hour", OverviewPage.missed(st), !st.retired()))
                .append(item("missed in all", st.missedTotal()))
                .append(item("last missed", Html.time(st.lastMissedAt())))
                .append(item(
                        "swept until",
                        Html.time(st.sweptUntil())
                                + (st.sweptAt() == null
                                        ? ""
                                        : " (at " + Html.time(st.sweptAt()) + " by " + st.sweptBy() + ")")))
                .append(item("next sweep", st.checkAt() == null ? "none (retired)" : Html.time(st.checkAt())));
        if (st.sweepError() != null) {
            s.append("<dt>sweep error</dt><dd class=\"alert\">")
                    .append(Html.esc(st.sweepError()))
                    .append("</dd>");
        }
        s.append("</dl>");
        if (!why.isEmpty()) {
            s.append("<ul class=\"why\">");
            why.forEach(w -> s.append("<li>").append(Html.esc(w)).append("</li>"));
            s.append("</ul>");
        }
        s.append(overdueFires(overdue)).append(missedFires(missed));
        return s.append("<p class=\"note\">Every fire due up to \"swept until\" is accounted for: COMPLETED, FAILED "
                        + "or MISSED. A fire due after it, past its grace, and not run is overdue: counted here by the "
                        + "database clock, whether or not a sweeper runs. The sweeper catches overdue fires up or "
                        + "records them MISSED by the policy. A paused or retired schedule has no due fires; a "
                        + "process that registers a retired one makes it active again.</p>")
                .append(versions(history.versions()))
                .append(spans(history.spans()))
                .append("</section>")
                .toString();
    }

    /**
     * What an operator should look at, in words ({@link TenureAdmin.ScheduleState#attention}): fires missed in the
     * last hour, a check time more than {@link #UNSWEPT_AFTER} behind (the console does not know the application's
     * sweep interval: the default one's rule), a failing sweep, a pause. Nothing for a retired schedule.
     */
    static List<String> attention(TenureAdmin.ScheduleState st) {
        return st.attention(MISSED_WITHIN, UNSWEPT_AFTER);
    }

    /** {@link #attention(TenureAdmin.ScheduleState)} with the fires overdue now (null: the last sweep's count). */
    static List<String> attention(TenureAdmin.ScheduleState st, OverdueFires overdue) {
        return st.attention(MISSED_WITHIN, UNSWEPT_AFTER, overdue);
    }

    /** True when the section (and the job's row in the list) is highlighted: something but a pause needs a look. */
    static boolean needsAttention(TenureAdmin.ScheduleState st) {
        return needsAttention(st, null);
    }

    /** {@link #needsAttention(TenureAdmin.ScheduleState)} with the fires overdue now (null: the last sweep's count). */
    static boolean needsAttention(TenureAdmin.ScheduleState st, OverdueFires overdue) {
        return !st.retired()
                && !st.paused()
                && (st.missedLastHour() > 0 || !attention(st, overdue).isEmpty());
    }

    /** Fires recorded MISSED are listed from this far back. */
    static final Duration MISSED_LISTED_WITHIN = Duration.ofDays(1);

    /** How many overdue and MISSED fires the section lists. */
    static final int LISTED = OverdueFires.LISTED;

    private static String overdueNow(TenureAdmin.ScheduleState st, OverdueFires overdue) {
        if (overdue == null) {
            return "";
        }
        boolean alarms = overdue.any() && !st.retired() && !st.paused();
        String text = !overdue.any()
                ? (overdue.exact()
                        ? "0"
                        : "0+ (a fire at the next due time ran and no sweeper has moved the account on since: this "
                                + "console cannot walk " + st.kind() + " schedules)")
                : overdue.shown() + (overdue.count() == 1 && overdue.exact() ? " fire" : " fires") + " overdue"
                        + (overdue.since() == null ? "" : " since " + Html.time(overdue.since()))
                        + (overdue.exact() ? "" : " (at least: this console cannot walk " + st.kind() + " schedules)");
        return "<dt>overdue now</dt><dd class=\"overdue" + (alarms ? " alert" : "") + "\">" + Html.esc(text) + "</dd>";
    }

    /** The overdue fires by fire key, oldest first. */
    private static String overdueFires(OverdueFires overdue) {
        if (overdue == null || overdue.fireKeys().isEmpty()) {
            return "";
        }
        StringBuilder s = new StringBuilder("<h3>Overdue fires</h3><ul class=\"overdue-fires\">");
        overdue.fireKeys().forEach(k -> s.append("<li>").append(Html.esc(k)).append("</li>"));
        s.append("</ul>");
        long more = overdue.count() - overdue.fireKeys().size();
        if (more > 0) {
            s.append("<p class=\"note\">and ")
                    .append(more)
                    .append(overdue.exact() ? "" : "+")
                    .append(" more</p>");
        }
        return s.toString();
    }

    /** The latest fires recorded MISSED, newest first, with why. */
    private static String missedFires(List<TenureAdmin.MissedFire> missed) {
        if (missed.isEmpty()) {
            return "";
        }
        StringBuilder s = new StringBuilder("<h3>Fires recorded MISSED (the latest, in the last "
                + Html.duration(MISSED_LISTED_WITHIN) + ")</h3><ul class=\"missed-fires\">");
        for (TenureAdmin.MissedFire f : missed) {
            s.append("<li><b>")
                    .append(Html.esc(
                            f.summary().map(dev.tenure.db.MissedSummary::line).orElse(f.fireKey())))
                    .append("</b> — ")
                    .append(Html.esc(f.reason()))
                    .append("</li>");
        }
        return s.append("</ul>").toString();
    }

    /** {@code ACTIVE}, or e.g. {@code PAUSED since 2026-12-07 10:00:00Z by web-1/billing/11: paused in Quartz}. */
    static String state(TenureAdmin.ScheduleState st) {
        if (st.stateSince() == null) {
            return st.state();
        }
        return st.state() + " since " + Html.time(st.stateSince())
                + (st.stateBy() == null ? "" : " by " + st.stateBy())
                + (st.stateReason() == null ? "" : ": " + st.stateReason());
    }

    private static String version(TenureAdmin.ScheduleState st) {
        return st.version()
                + (st.versionFrom() == null ? " (from the start)" : " (since " + Html.time(st.versionFrom()) + ")");
    }

    private static String seen(TenureAdmin.ScheduleState st) {
        Instant seen = st.seenAt();
        if (seen == null) {
            return "never";
        }
        Instant now = st.readAt();
        return Html.time(seen)
                + (now == null || now.isBefore(seen)
                        ? ""
                        : " (" + Html.duration(Duration.between(seen, now)) + " ago)");
    }

    private static String versions(List<ScheduleHistory.Version> versions) {
        if (versions.isEmpty()) {
            return "";
        }
        StringBuilder rows = new StringBuilder();
        for (ScheduleHistory.Version v : versions) {
            rows.append("<tr>")
                    .append(Layout.td(v.version(), "num"))
                    .append(Layout.td(v.kind() + " " + v.expression(), null))
                    .append(Layout.td(v.validFrom() == null ? "the start" : Html.time(v.validFrom()), null))
                    .append(Layout.td(v.validUntil() == null ? "now" : Html.time(v.validUntil()), null))
                    .append(Layout.td(v.registeredBy(), null))
                    .append("</tr>");
        }
        return "<h3>Versions</h3>" + Layout.table("versions", VERSION_HEADERS, rows, "");
    }

    private static String spans(List<ScheduleHistory.Span> spans) {
        if (spans.isEmpty()) {
            return "";
        }
        StringBuilder rows = new StringBuilder();
        for (ScheduleHistory.Span p : spans) {
            rows.append("<tr>")
                    .append(Layout.td(p.state(), null))
                    .append(Layout.td(Html.time(p.from()), null))
                    .append(Layout.td(p.until() == null ? "now" : Html.time(p.until()), null))
                    .append(Layout.td(p.reason(), "story"))
                    .append(Layout.td(p.setBy(), null))
                    .append("</tr>");
        }
        return "<h3>Paused and retired</h3>" + Layout.table("spans", SPAN_HEADERS, rows, "");
    }

    private static String item(String name, Object value) {
        return JobPage.item(name, value);
    }

    /** A value that is highlighted unless it is 0 (or the schedule is retired: a removed job does not alarm). */
    private static String alert(String name, Object value, boolean alarms) {
        boolean some = alarms && !"0".equals(String.valueOf(value));
        return "<dt>" + Html.esc(name) + "</dt><dd" + (some ? " class=\"alert\"" : "") + ">" + Html.esc(value)
                + "</dd>";
    }
}
