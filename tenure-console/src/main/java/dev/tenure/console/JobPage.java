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
                + summary(s)
                + "<section><h2>Timeline</h2>"
                + TimelineSvg.render(m.page().runs(), m.now())
                + "<p class=\"legend\"><span class=\"badge st-COMPLETED\">COMPLETED</span> <span class=\"badge st-RUNNING\">"
                + "RUNNING</span> <span class=\"badge st-FAILED\">FAILED</span> <span class=\"badge st-ABANDONED\">ABANDONED"
                + "</span> <span class=\"badge st-REJECTED_STALE\">REJECTED_STALE</span> <span class=\"badge st-MISSED\">"
                + "MISSED</span> (a cross at its fire time); a grey line: a rotation (another node took the next fire, "
                + "healthy); a red dashed line: the lease changed hands after a lost attempt (a fault)</p></section>"
                + "<section><h2>Fires</h2>" + runs(m, traces) + "</section>" + audit(m.audit());
        return Layout.page(m.base(), j.jobKey(), live, actions(m), m.refresh(), m.now());
    }

    /**
     * What happened in the latest runs: each fire in exactly one bucket, so the buckets add up to the fires; rotations
     * apart, in neutral colours.
     */
    private static String summary(Views.Summary s) {
        return "<section class=\"summary\"><h2>In the latest " + s.recent().size() + " runs: <span class=\"fires\">"
                + s.fires() + "</span> fires</h2><p class=\"note\">Each fire is in exactly one bucket, by how its "
                + "row ended; the buckets add up to the fires (a summary record of missed fires counts its fires).</p><ul>"
                + bucket("completed", "completed", s.completed(), false, "COMPLETED on its first attempt")
                + bucket(
                        "caught-up",
                        "caught up after a lost attempt",
                        s.caughtUp(),
                        true,
                        "COMPLETED by a later attempt after an earlier one was fenced off (its holder's lease "
                                + "ended mid-run: killed, frozen or cut off) or failed")
                + bucket(
                        "rejected-stale",
                        "stale writes rejected",
                        s.staleRejected(),
                        true,
                        "REJECTED_STALE: the holder lost its lease mid-run and came back; its fenced writes rolled "
                                + "back and its outcome was refused; not run again yet")
                + bucket(
                        "abandoned",
                        "abandoned runs",
                        s.abandoned(),
                        true,
                        "ABANDONED: the holder's lease ended mid-run (killed, frozen, cut off or force-released) and "
                                + "it is fenced off; not run again yet")
                + bucket("failed", "failed runs", s.failed(), true, "FAILED: the work threw")
                + bucket(
                        "missed",
                        "missed fires",
                        s.missed(),
                        true,
                        "MISSED: due and not completed; the sweeper recorded why (a summary record counts its fires)")
                + bucket("running", "running", s.running(), false, "RUNNING now")
                + "</ul><ul>"
                + count(
                        "rotations",
                        s.rotations(),
                        false,
                        "not a bucket: a fire run by another node than the fire before it: "
                                + "healthy nodes sharing the fires, not an incident")
                + "</ul></section>";
    }

    private static String bucket(String id, String name, long n, boolean incident, String meaning) {
        return count(name, n, incident, meaning).replaceFirst("<li ", "<li data-bucket=\"" + id + "\" ");
    }

    private static String runs(Model m, TraceLink traces) {
        StringBuilder rows = new StringBuilder();
        for (Views.Run r : m.page().runs()) {
            boolean missed = r.missed();
            boolean started = r.startedBeforeMissed();
            rows.append("<tr")
                    .append(
                            missed
                                    ? " class=\"missed\""
                                    : r.incident() ? " class=\"incident\"" : r.rotation() ? " class=\"rotation\"" : "")
                    .append(">")
                    .append(Layout.td(r.fireLabel(), null))
                    .append(Layout.td(missed && !started ? "not run" : r.node(), missed && !started ? "muted" : null))
                    .append(Layout.td(missed && !started ? "" : r.epoch(), "num"))
                    .append(Layout.status(r.status()))
                    .append(Layout.td(missed ? "" : Html.duration(r.duration()), "num"))
                    .append(Layout.td(missed && !started ? "" : r.attempt(), "num"))
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
        if (r.missed() && r.startedBeforeMissed()) {
            s.append("started by ")
                    .append(r.node())
                    .append(", then its holder lost its lease (")
                    .append(lost(r.previousStatus()))
                    .append("). ");
        } else if (r.previousStatus() != null && !r.missed()) {
            s.append("attempt ")
                    .append(r.attempt() - 1)
                    .append(' ')
                    .append(earlier(r.previousStatus()))
                    .append("; ");
        }
        Instant due = r.fireTime();
        boolean late = !r.missed()
                && due != null
                && Duration.between(due, r.startedAt()).compareTo(LATE) > 0;
        if (r.previousStatus() != null && !r.missed()) {
            s.append(late ? "caught up: " : "run again: ");
        }
        if (late) {
            s.append("started ")
                    .append(Html.duration(Duration.between(due, r.startedAt())))
                    .append(" after its fire time. ");
        } else if (r.previousStatus() != null && !r.missed()) {
            s.append("attempt ").append(r.attempt()).append(". ");
        }
        if ("ABANDONED".equals(r.status()) || "REJECTED_STALE".equals(r.status())) {
            s.append("fenced off: ").append(lost(r.status())).append("; not run again yet. ");
        }
        if (r.missed()) {
            s.append("recorded MISSED by the sweeper ").append(r.owner()).append(": ");
        }
        if (r.error() != null) {
            s.append(r.error());
        }
        return s.toString().trim();
    }

    /** How an earlier attempt ended, as the row that took it over records it. */
    private static String earlier(String status) {
        return switch (status) {
            case "ABANDONED", "RUNNING" ->
                "fenced off (its holder's lease ended mid-run: killed, frozen or cut off; a frozen holder that came "
                        + "back was refused, so nothing it wrote committed)";
            case "REJECTED_STALE" -> "fenced off (its holder lost its lease mid-run, came back and was refused)";
            case "FAILED" -> "failed";
            default -> "ended " + status;
        };
    }

    /** Why a run that started lost its lease, from its status. */
    private static String lost(String status) {
        return switch (status) {
            case "REJECTED_STALE" -> "REJECTED_STALE: it came back after losing its lease and was refused";
            case "RUNNING" -> "its lease ended while it ran";
            default -> "ABANDONED: its lease ended while it ran; killed, frozen, cut off or force-released";
        };
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
