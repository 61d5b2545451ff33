package dev.tenure.console;

import dev.tenure.db.OverdueFires;
import dev.tenure.db.ScheduleHistory;
import dev.tenure.db.TenureAdmin;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One job: its holder now, its schedule (when it has one), what happened in its latest runs, the timeline, its fires
 * page by page (MISSED fires with why), the audit log.
 */
final class JobPage {

    private static final String[] RUN_HEADERS = {
        "fire key", "node", "epoch", "status", "duration", "attempt", "started", "what happened", "trace"
    };

    /** What the page shows; {@code history} holds the versions and spans of the job's schedule (empty without one). */
    record Model(
            String base,
            Views.Job job,
            String mode,
            Optional<TenureAdmin.ScheduleState> schedule,
            Views.Summary summary,
            Views.RunPage page,
            boolean firstPage,
            List<Views.Audit> audit,
            Actions actions,
            int refresh,
            Instant now,
            ScheduleHistory history,
            Optional<OverdueFires> overdue,
            List<TenureAdmin.MissedFire> missed) {

        /** A page with the schedule's history, without the fires overdue now and the MISSED ones listed. */
        Model(
                String base,
                Views.Job job,
                String mode,
                Optional<TenureAdmin.ScheduleState> schedule,
                Views.Summary summary,
                Views.RunPage page,
                boolean firstPage,
                List<Views.Audit> audit,
                Actions actions,
                int refresh,
                Instant now,
                ScheduleHistory history) {
            this(
                    base,
                    job,
                    mode,
                    schedule,
                    summary,
                    page,
                    firstPage,
                    audit,
                    actions,
                    refresh,
                    now,
                    history,
                    Optional.empty(),
                    List.of());
        }

        /** A page without the schedule's history. */
        Model(
                String base,
                Views.Job job,
                String mode,
                Optional<TenureAdmin.ScheduleState> schedule,
                Views.Summary summary,
                Views.RunPage page,
                boolean firstPage,
                List<Views.Audit> audit,
                Actions actions,
                int refresh,
                Instant now) {
            this(
                    base,
                    job,
                    mode,
                    schedule,
                    summary,
                    page,
                    firstPage,
                    audit,
                    actions,
                    refresh,
                    now,
                    new ScheduleHistory(job.jobKey(), List.of(), List.of()));
        }
    }

    /** A run that started more than this after its fire time says how late it started. */
    static final Duration LATE = Duration.ofSeconds(1);

    /**
     * What the page offers the operator: nothing (actions are off), a sign-in link, or, once signed in, the
     * force-release form with a CSRF token of the operator's session.
     */
    record Actions(boolean enabled, String operator, String csrf) {
        static final Actions OFF = new Actions(false, null, null);
        static final Actions SIGN_IN = new Actions(true, null, null);

        static Actions signedIn(String operator, String csrf) {
            return new Actions(true, operator, csrf);
        }
    }

    private JobPage() {}

    static String render(Model m) {
        return render(m, TraceLink.NONE);
    }

    /** The page, with each run's trace id linked through {@code traces}. */
    static String render(Model m, TraceLink traces) {
        Views.Job j = m.job();
        Views.Summary s = m.summary();
        String live = "<section class=\"state\"><h1>" + Html.esc(j.jobKey()) + "</h1><dl>"
                + item("holder", j.held() ? j.node() + " (owner " + j.owner() + ")" : "nobody")
                + item("epoch", j.epoch()) + item("lease left", j.held() ? Html.duration(j.leaseLeft()) : "")
                + item("mode", m.mode()) + item("last outcome", j.lastStatus())
                + item("fires in the last hour", OverviewPage.fires(j))
                + "</dl></section>"
                + m.schedule()
                        .map(st -> ScheduleSection.render(
                                st, m.history(), m.overdue().orElse(null), m.missed()))
                        .orElse("")
                + "<section class=\"summary\"><h2>In the latest " + s.recent().size() + " runs</h2><ul>"
                + count(
                        "rotations",
                        s.rotations(),
                        false,
                        "a fire run by another node than the fire before it: "
                                + "healthy nodes sharing the fires, not an incident")
                + count(
                        "stale writes rejected",
                        s.staleRejected(),
                        "REJECTED_STALE: the holder lost its lease mid-run "
                                + "and came back; its fenced writes rolled back and its outcome was refused")
                + count(
                        "abandoned runs",
                        s.abandoned(),
                        "ABANDONED: the holder's lease ended mid-run (killed, or "
                                + "not back yet); the next holder took the job over")
                + count("failed runs", s.failed(), "FAILED: the work threw")
                + count(
                        "missed fires",
                        s.missed(),
                        "MISSED: due and not run; the sweeper recorded why (a summary record counts its fires)")
                + "</ul></section><section><h2>Timeline</h2>"
                + TimelineSvg.render(m.page().runs(), m.now())
                + "<p class=\"legend\"><span class=\"badge st-COMPLETED\">COMPLETED</span> <span class=\"badge st-RUNNING\">"
                + "RUNNING</span> <span class=\"badge st-FAILED\">FAILED</span> <span class=\"badge st-ABANDONED\">ABANDONED"
                + "</span> <span class=\"badge st-REJECTED_STALE\">REJECTED_STALE</span> <span class=\"badge st-MISSED\">"
                + "MISSED</span> (a cross at its fire time) dashed line: the lease changed hands (new epoch)</p></section>"
                + "<section><h2>Fires</h2>" + runs(m, traces) + "</section>" + audit(m.audit());
        return Layout.page(m.base(), j.jobKey(), live, actions(m), m.refresh(), m.now());
    }

    private static String runs(Model m, TraceLink traces) {
        StringBuilder rows = new StringBuilder();
        for (Views.Run r : m.page().runs()) {
            boolean missed = r.missed();
            rows.append("<tr")
                    .append(
                            missed
                                    ? " class=\"missed\""
                                    : r.incident() ? " class=\"incident\"" : r.rotation() ? " class=\"rotation\"" : "")
                    .append(">")
                    .append(Layout.td(r.fireLabel(), null))
                    .append(Layout.td(missed ? "not run" : r.node(), missed ? "muted" : null))
                    .append(Layout.td(missed ? "" : r.epoch(), "num"))
                    .append(Layout.status(r.status()))
                    .append(Layout.td(missed ? "" : Html.duration(r.duration()), "num"))
                    .append(Layout.td(missed ? "" : r.attempt(), "num"))
                    .append(Layout.td(Html.time(r.startedAt()), null))
                    .append(Layout.td(story(r), "story"))
                    .append(traces.cell(r.traceId()))
                    .append("</tr>");
        }
        String base =
                Html.esc(m.base()) + "/job?key=" + Html.esc(Html.url(m.job().jobKey()));
        StringBuilder nav = new StringBuilder("<p class=\"more\">");
        if (!m.firstPage()) {
            nav.append("<a href=\"").append(base).append("\">← newest</a> ");
        }
        m.page()
                .next()
                .ifPresent(c -> nav.append("<a href=\"")
                        .append(base)
                        .append("&amp;before=")
                        .append(Html.esc(Html.url(c.encode())))
                        .append("\">older →</a>"));
        return Layout.table("runs", RUN_HEADERS, rows, "No runs on this page.") + nav.append("</p>");
    }

    /**
     * What happened in a run, in words: rotation, the attempt it took over, how late it started (more than
     * {@link #LATE} after its fire time: a catch-up, or a late start), the error; for a MISSED fire, which sweeper
     * recorded it and why.
     */
    static String story(Views.Run r) {
        StringBuilder s = new StringBuilder();
        if (r.rotation()) {
            s.append("rotation: another node than the last fire's ran it. ");
        }
        if (r.previousStatus() != null && !r.missed()) { // a MISSED fire's reason says how its run ended
            s.append("took over attempt ")
                    .append(r.attempt() - 1)
                    .append(" (")
                    .append(r.previousStatus())
                    .append("). ");
        }
        Instant due = r.fireTime();
        if (!r.missed() && due != null && Duration.between(due, r.startedAt()).compareTo(LATE) > 0) {
            s.append("started ")
                    .append(Html.duration(Duration.between(due, r.startedAt())))
                    .append(" after its fire time. ");
        }
        if (r.missed()) {
            s.append("recorded MISSED by the sweeper ").append(r.owner()).append(": ");
        }
        if (r.error() != null) {
            s.append(r.error());
        }
        return s.toString().trim();
    }

    private static String audit(List<Views.Audit> audit) {
        if (audit.isEmpty()) {
            return "";
        }
        StringBuilder s = new StringBuilder("<section><h2>Operator actions</h2><ul class=\"audit\">");
        for (Views.Audit a : audit) {
            s.append("<li>")
                    .append(Html.esc(Html.time(a.at())))
                    .append(" ")
                    .append(Html.esc(a.action()))
                    .append(" by ")
                    .append(Html.esc(a.actor()))
                    .append(a.oldEpoch() == null ? "" : ": epoch " + a.oldEpoch() + " → " + a.newEpoch())
                    .append(
                            a.oldOwner() == null
                                    ? ""
                                    : " (was held by " + Html.esc(Nodes.named(a.oldNode(), a.oldOwner())) + ")")
                    .append(" — ")
                    .append(Html.esc(a.reason()))
                    .append("</li>");
        }
        return s.append("</ul></section>").toString();
    }

    private static String actions(Model m) {
        Actions a = m.actions();
        if (!a.enabled()) {
            return "<section id=\"actions\"><p class=\"note\">Read-only console: actions are off.</p></section>";
        }
        String key = m.job().jobKey();
        if (a.csrf() == null) {
            return "<section id=\"actions\"><h2>Force-release</h2><p><a id=\"signin\" href=\"" + Html.esc(m.base())
                    + "/signin?next=" + Html.esc(Html.url("/job?key=" + Html.url(key))) + "\">Sign in</a> as the "
                    + "console's operator to force-release this job.</p></section>";
        }
        return "<section id=\"actions\"><h2>Force-release</h2><form method=\"post\" action=\"" + Html.esc(m.base())
                + "/release\"><input type=\"hidden\" name=\"key\" value=\"" + Html.esc(key) + "\">"
                + "<input type=\"hidden\" name=\"csrf\" value=\"" + Html.esc(a.csrf()) + "\"><label>Reason <input "
                + "name=\"reason\" required maxlength=\"500\" size=\"60\"></label> <button type=\"submit\">Force-release"
                + "</button></form><p class=\"note\">Bumps the epoch (the holder's next fence check fails), abandons its "
                + "running run, wakes the job's waiters and writes an audit row. Signed in as " + Html.esc(a.operator())
                + ".</p></section>";
    }

    static String item(String name, Object value) {
        return "<dt>" + Html.esc(name) + "</dt><dd>" + Html.esc(value) + "</dd>";
    }

    /** An incident count: red when not 0. */
    private static String count(String name, long n, String meaning) {
        return count(name, n, true, meaning);
    }

    /** A count, red when an {@code incident} count is not 0 ({@code some}); neutral otherwise. */
    private static String count(String name, long n, boolean incident, String meaning) {
        String css = !incident ? "neutral" : n > 0 ? "some" : "none";
        return "<li class=\"" + css + "\"><b>" + n + "</b> " + Html.esc(name) + " <span class=\"note\">"
                + Html.esc(meaning) + "</span></li>";
    }
}
