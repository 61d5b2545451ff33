package dev.tenure.console;

import dev.tenure.TenureException;
import dev.tenure.db.ScheduleHistory;
import dev.tenure.db.TenureAdmin;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's web application, independent of the server that carries it: routes a {@link WebRequest} to a page or
 * the one write action and returns a {@link WebResponse}. GET {@code /} (jobs with their schedules, and elections),
 * GET {@code /job?key=} (one job, its schedule with its state, versions and spans; {@code &before=} pages back), GET {@code /signin?next=} (asks for the operator's Basic credentials, opens a
 * session, returns to {@code next}), POST {@code /release} (force-release: only when actions are enabled, with valid
 * Basic credentials, the operator's session, a CSRF token issued in that session and, if the browser sends one, a
 * same-host {@code Origin}), GET {@code /static/…}. Thread-safe.
 */
final class ConsoleApp {

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleApp.class);
    private static final int JOBS_PER_PAGE = 200;
    private final ConsoleQueries queries;
    private final TenureAdmin admin;
    private final ValkeyLeases valkey;
    private final Credentials credentials;
    private final Sessions sessions;
    private final CsrfTokens csrf;
    private final int refresh;
    private final int runsPerPage;
    private final TraceLink traces;

    ConsoleApp(
            ConsoleQueries queries,
            TenureAdmin admin,
            ValkeyLeases valkey,
            Credentials credentials,
            Sessions sessions,
            CsrfTokens csrf,
            int refresh,
            int runsPerPage,
            TraceLink traces) {
        this.queries = queries;
        this.admin = admin;
        this.valkey = valkey;
        this.credentials = credentials;
        this.sessions = sessions;
        this.csrf = csrf;
        this.refresh = refresh;
        this.runsPerPage = runsPerPage;
        this.traces = traces;
    }

    WebResponse handle(WebRequest r) {
        try {
            return route(r);
        } catch (IllegalArgumentException e) {
            return error(r, 400, e.getMessage());
        } catch (TenureException e) { // the console's reads and TenureAdmin's force-release: database faults
            return error(r, 503, e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("console request {} {} failed", r.method(), r.path(), e);
            return error(r, 500, "internal error: " + e.getClass().getSimpleName() + " (see the server log)");
        }
    }

    private WebResponse route(WebRequest r) {
        boolean get = r.method().equals("GET") || r.method().equals("HEAD");
        String path = r.path().isEmpty() ? "/" : r.path();
        if (path.equals("/release")) {
            return r.method().equals("POST")
                    ? release(r)
                    : error(r, 405, "POST only").with("Allow", "POST");
        }
        if (!get) {
            return error(r, 405, "GET only").with("Allow", "GET, HEAD");
        }
        return switch (path) {
            case "/" -> overview(r);
            case "/job" -> job(r);
            case "/signin" -> signIn(r);
            case "/static/console.css" -> resource("console.css", "text/css; charset=utf-8");
            case "/static/console.js" -> resource("console.js", "text/javascript; charset=utf-8");
            default -> error(r, 404, "no page " + path);
        };
    }

    private WebResponse overview(WebRequest r) {
        String after = r.query().getOrDefault("after", "");
        List<Views.Job> jobs = queries.jobs(after, JOBS_PER_PAGE + 1);
        Optional<String> next = jobs.size() > JOBS_PER_PAGE
                ? Optional.of(jobs.get(JOBS_PER_PAGE - 1).jobKey())
                : Optional.empty();
        jobs = jobs.subList(0, Math.min(jobs.size(), JOBS_PER_PAGE));
        Map<String, ValkeyLeases.Lease> leases = valkey == null
                ? Map.of()
                : valkey.leases(jobs.stream().map(Views.Job::jobKey).toList());
        Map<String, TenureAdmin.ScheduleState> schedules = new HashMap<>();
        admin.schedules(jobs.stream().map(Views.Job::jobKey).toList()).forEach(s -> schedules.put(s.jobKey(), s));
        return WebResponse.html(
                200,
                OverviewPage.render(
                        r.base(),
                        jobs,
                        schedules,
                        admin.overdue(schedules.keySet()),
                        leases,
                        valkey != null,
                        queries.leaders(JOBS_PER_PAGE),
                        next,
                        refresh,
                        Instant.now()));
    }

    private WebResponse job(WebRequest r) {
        String key = r.query().get("key");
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("which job? /job?key=<job key>");
        }
        Optional<Cursor> before = Optional.ofNullable(r.query().get("before")).map(Cursor::parse);
        Views.Job j = queries.job(key).orElse(null);
        if (j == null) {
            return error(r, 404, "no job '" + key + "' in Tenure's tables");
        }
        ValkeyLeases.Lease lease =
                valkey == null ? null : valkey.leases(List.of(key)).get(key);
        JobPage.Actions actions = credentials == null
                ? JobPage.Actions.OFF
                : session(r)
                        .map(s -> JobPage.Actions.signedIn(s.operator(), csrf.issue("release", key, s)))
                        .orElse(JobPage.Actions.SIGN_IN);
        Optional<TenureAdmin.ScheduleState> schedule =
                admin.schedules(List.of(key)).stream().findFirst();
        JobPage.Model m = new JobPage.Model(
                r.base(),
                j,
                Modes.of(j, lease, valkey != null),
                schedule,
                queries.summary(key),
                queries.runs(key, before, runsPerPage),
                before.isEmpty(),
                queries.audit(key, 5),
                actions,
                refresh,
                Instant.now(),
                schedule.isPresent() ? admin.scheduleHistory(key) : new ScheduleHistory(key, List.of(), List.of()),
                schedule.isPresent()
                        ? Optional.ofNullable(admin.overdue(List.of(key)).get(key))
                        : Optional.empty(),
                schedule.isPresent()
                        ? admin.missedFires(key, ScheduleSection.MISSED_LISTED_WITHIN, ScheduleSection.LISTED)
                        : List.of());
        return WebResponse.html(200, JobPage.render(m, traces));
    }

    /**
     * Sign-in: without the operator's valid credentials, a Basic challenge (the browser asks for them); with them, a
     * new session in a cookie and a redirect back to {@code next} when it is a plain path of the console, otherwise to
     * the overview ({@link ReturnPath}).
     */
    private WebResponse signIn(WebRequest r) {
        if (credentials == null) {
            return actionsDisabled(r);
        }
        Optional<String> user = credentials.check(r.header().apply("Authorization"));
        if (user.isEmpty()) {
            return challenge(r, "sign in as the console's operator to force-release");
        }
        return WebResponse.seeOther(r.base() + ReturnPath.sameOrigin(r.query().get("next")))
                .with("Set-Cookie", Sessions.setCookie(sessions.open(user.get()), r.base()));
    }

    /** The signed-in operator's session: valid Basic credentials and a session cookie opened for that operator. */
    private Optional<Sessions.Session> session(WebRequest r) {
        return credentials
                .check(r.header().apply("Authorization"))
                .flatMap(user -> sessions.find(r.header().apply("Cookie"), user));
    }

    private WebResponse release(WebRequest r) {
        if (credentials == null) {
            return actionsDisabled(r);
        }
        if (credentials.check(r.header().apply("Authorization")).isEmpty()) {
            return challenge(r, "sign in as the console's operator to force-release");
        }
        String key = r.form().getOrDefault("key", "");
        Optional<Sessions.Session> session = session(r);
        if (session.isEmpty()) {
            return error(
                    r,
                    403,
                    "no signed-in session: sign in on the job's page (its \"sign in\" link) and submit " + "again");
        }
        if (!csrf.verify(r.form().get("csrf"), "release", key, session.get()) || !sameOrigin(r)) {
            return error(
                    r,
                    403,
                    "the form's CSRF token is missing, expired or not for this job and session: reload "
                            + "the job's page and submit again");
        }
        String operator = session.get().operator();
        TenureAdmin.ForceRelease done = admin.forceRelease(key, r.form().get("reason"), "console:" + operator);
        LOG.info(
                "force-released {} by console:{}: epoch {} -> {}, audit {}",
                key,
                operator,
                done.oldEpoch(),
                done.newEpoch(),
                done.auditId());
        return WebResponse.seeOther(r.base() + "/job?key=" + Html.url(key));
    }

    private WebResponse actionsDisabled(WebRequest r) {
        return error(
                r,
                403,
                "actions are disabled: this console is read-only (start it with actions enabled and "
                        + "operator credentials to allow force-release)");
    }

    private WebResponse challenge(WebRequest r, String message) {
        return error(r, 401, message).with("WWW-Authenticate", "Basic realm=\"tenure-console\", charset=\"UTF-8\"");
    }

    /** A browser's Origin (when it sends one) must name the host the request went to. */
    private static boolean sameOrigin(WebRequest r) {
        String origin = r.header().apply("Origin");
        String host = r.header().apply("Host");
        return origin == null
                || (host != null && (origin.equals("http://" + host) || origin.equals("https://" + host)));
    }

    private WebResponse error(WebRequest r, int status, String message) {
        String live = "<section class=\"error\"><h1>" + status + "</h1><p>" + Html.esc(message) + "</p><p><a href=\""
                + Html.esc(r.base()) + "/\">all jobs</a></p></section>";
        return WebResponse.html(status, Layout.page(r.base(), "error " + status, live, "", 0, Instant.now()));
    }

    private static WebResponse resource(String name, String type) {
        try (InputStream in = ConsoleApp.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " is missing from the console's jar");
            }
            return WebResponse.of(200, type, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
