package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.Timing;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3: force-release over HTTP is refused when actions are off, without sign-in, with a wrong password,
 * without a session, with a token of another session, a forged or missing CSRF token, a foreign or opaque Origin; when
 * done, the epoch is bumped, the audit row written, and the holder's next fence fails (its business write rolls back).
 * Also: every value on the page is HTML-escaped. {@link ForceReleaseBrowserIT} does it in a real browser.
 */
class ForceReleaseIT {

    private static final String PASSWORD = "correct horse battery";
    private static TestDatabase db;
    private static HikariDataSource pool;
    private static Tenure tenure;

    @BeforeAll
    static void start() throws Exception {
        db = TestDatabase.forClass(ForceReleaseIT.class);
        pool = db.pool();
        tenure = Tenure.builder()
                .dataSource(pool)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .build();
        db.sql("CREATE TABLE payout (fire text, epoch bigint)");
    }

    @AfterAll
    static void stop() {
        tenure.close();
        db.close();
    }

    @Test
    void forceRelease_refusedUnlessEnabledSignedInAndCsrfValid_thenTheHoldersFenceFails() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        CompletableFuture<RunOutcome<Integer>> run = CompletableFuture.supplyAsync(() -> tenure.coordinator()
                .run("payout", "fire-1", RunPolicy.skipFire(), ctx -> {
                    holding.countDown();
                    proceed.await(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
                    return ctx.completeInTransaction(pool, c -> {
                        try (Statement s = c.createStatement()) {
                            return s.executeUpdate("INSERT INTO payout VALUES ('fire-1', " + ctx.epoch() + ")");
                        }
                    });
                }));
        assertThat(holding.await(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS))
                .isTrue();
        TenureAdmin admin = TenureAdmin.create(pool);
        long epoch = admin.job("payout").orElseThrow().epoch();
        Map<String, String> form = Map.of("key", "payout", "reason", "stuck <b>since</b> the deploy", "csrf", "x");

        try (ConsoleServer readOnly =
                TenureConsole.builder(pool).build().serve(new InetSocketAddress("127.0.0.1", 0))) {
            assertThat(Http.get(readOnly.url() + "/job?key=payout").body())
                    .contains("Read-only console: actions are off")
                    .doesNotContain("<form", "signin");
            assertThat(Http.get(readOnly.url() + "/signin?next=%2F", "Authorization", Http.basic("ops", PASSWORD))
                            .statusCode())
                    .isEqualTo(403);
            HttpResponse<String> off =
                    Http.post(readOnly.url() + "/release", form, "Authorization", Http.basic("ops", PASSWORD));
            assertThat(off.statusCode()).isEqualTo(403);
            assertThat(off.body()).contains("actions are disabled");
        }
        try (ConsoleServer server = TenureConsole.builder(pool)
                .actions("ops", PASSWORD)
                .build()
                .serve(new InetSocketAddress("127.0.0.1", 0))) {
            String release = server.url() + "/release";
            String auth = Http.basic("ops", PASSWORD);
            String signedOut = Http.get(server.url() + "/job?key=payout").body();
            assertThat(signedOut)
                    .contains("<a id=\"signin\" href=\"/signin?next=%2Fjob%3Fkey%3Dpayout\">Sign in</a>")
                    .doesNotContain("<form", "name=\"csrf\"");
            HttpResponse<String> challenge = Http.get(server.url() + "/signin?next=%2Fjob%3Fkey%3Dpayout");
            assertThat(challenge.statusCode()).isEqualTo(401);
            assertThat(challenge.headers().firstValue("WWW-Authenticate"))
                    .hasValue("Basic realm=\"tenure-console\", charset=\"UTF-8\"");
            assertThat(Http.get(server.url() + "/signin?next=%2F", "Authorization", Http.basic("ops", "wrong password"))
                            .statusCode())
                    .isEqualTo(401);
            assertThat(Http.get(server.url() + "/signin?next=%2F%2Fevil.example", "Authorization", auth)
                            .headers()
                            .firstValue("Location"))
                    .as("next outside the console: the overview (SignInRedirectIT)")
                    .hasValue("/");
            HttpResponse<String> signedIn =
                    Http.get(server.url() + "/signin?next=%2Fjob%3Fkey%3Dpayout", "Authorization", auth);
            assertThat(signedIn.statusCode()).isEqualTo(303);
            assertThat(signedIn.headers().firstValue("Location")).hasValue("/job?key=payout");
            assertThat(signedIn.headers().firstValue("Set-Cookie"))
                    .hasValueSatisfying(c -> assertThat(c)
                            .startsWith(Sessions.COOKIE + "=")
                            .endsWith("; Path=/; Max-Age=28800; HttpOnly; SameSite=Strict"));
            String session = Http.signIn(server.url(), "ops", PASSWORD);
            String otherSession = Http.signIn(server.url(), "ops", PASSWORD);
            assertThat(otherSession).isNotEqualTo(session);
            String page = Http.get(server.url() + "/job?key=payout", "Authorization", auth, "Cookie", session)
                    .body();
            assertThat(page).contains("Signed in as ops.");
            String csrf = csrf(page);
            assertThat(Http.get(server.url() + "/job?key=payout", "Cookie", session)
                            .body())
                    .as("the cookie without the credentials: not signed in")
                    .contains("id=\"signin\"")
                    .doesNotContain("name=\"csrf\"");
            Map<String, String> valid =
                    Map.of("key", "payout", "reason", "stuck <b>since</b> the deploy", "csrf", csrf);

            HttpResponse<String> anonymous = Http.post(release, valid, "Cookie", session);
            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(anonymous.headers().firstValue("WWW-Authenticate"))
                    .hasValue("Basic realm=\"tenure-console\", charset=\"UTF-8\"");
            assertThat(Http.post(
                                    release,
                                    valid,
                                    "Authorization",
                                    Http.basic("ops", "wrong password"),
                                    "Cookie",
                                    session)
                            .statusCode())
                    .isEqualTo(401);
            HttpResponse<String> noSession = Http.post(release, valid, "Authorization", auth);
            assertThat(noSession.statusCode())
                    .as("credentials without a session")
                    .isEqualTo(403);
            assertThat(noSession.body()).contains("no signed-in session");
            HttpResponse<String> otherSessions =
                    Http.post(release, valid, "Authorization", auth, "Cookie", otherSession);
            assertThat(otherSessions.statusCode())
                    .as("a token of another session")
                    .isEqualTo(403);
            assertThat(otherSessions.body()).contains("CSRF token is missing, expired or not for this job and session");
            String forged = csrf.substring(0, csrf.length() - 2) + (csrf.endsWith("A") ? "BB" : "AA");
            assertThat(Http.post(
                                    release,
                                    Map.of("key", "payout", "reason", "r", "csrf", forged),
                                    "Authorization",
                                    auth,
                                    "Cookie",
                                    session)
                            .statusCode())
                    .isEqualTo(403);
            assertThat(Http.post(
                                    release,
                                    Map.of("key", "payout", "reason", "r"),
                                    "Authorization",
                                    auth,
                                    "Cookie",
                                    session)
                            .statusCode())
                    .as("no token")
                    .isEqualTo(403);
            assertThat(Http.post(
                                    release,
                                    valid,
                                    "Authorization",
                                    auth,
                                    "Cookie",
                                    session,
                                    "Origin",
                                    "http://evil.example")
                            .statusCode())
                    .as("foreign origin")
                    .isEqualTo(403);
            assertThat(Http.post(release, valid, "Authorization", auth, "Cookie", session, "Origin", "null")
                            .statusCode())
                    .as("an opaque origin")
                    .isEqualTo(403);
            assertThat(admin.job("payout").orElseThrow().epoch())
                    .as("nothing changed yet")
                    .isEqualTo(epoch);

            HttpResponse<String> done =
                    Http.post(release, valid, "Authorization", auth, "Cookie", session, "Origin", server.url());
            assertThat(done.statusCode()).isEqualTo(303);
            assertThat(done.headers().firstValue("Location")).hasValue("/job?key=payout");
            TenureAdmin.JobState after = admin.job("payout").orElseThrow();
            assertThat(after.epoch()).isGreaterThan(epoch);
            assertThat(after.owner()).isNull();
            assertThat(
                            db.query(
                                    "SELECT actor || '|' || reason || '|' || old_epoch || '|' || new_epoch FROM tenure.audit_log"))
                    .isEqualTo("console:ops|stuck <b>since</b> the deploy|" + epoch + "|" + after.epoch());

            proceed.countDown();
            RunOutcome<Integer> outcome = run.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
            assertThat(outcome.status()).as("the old holder's fence failed").isEqualTo(RunOutcome.Status.LEASE_LOST);
            assertThat(db.query("SELECT count(*) FROM payout"))
                    .as("its write rolled back")
                    .isEqualTo("0");

            assertThat(Http.get(server.url() + "/job?key=payout").body())
                    .contains(
                            "force-release by console:ops",
                            "stuck &lt;b&gt;since&lt;/b&gt; the deploy",
                            "badge st-REJECTED_STALE")
                    .doesNotContain("<b>since</b>");
        }
    }

    @Test
    void everyValueIsEscaped_aKeyThatLooksLikeMarkupStaysText() throws Exception {
        String key = "x<script>alert('k')</script>&\"";
        tenure.coordinator().run(key, "<img/src=x>", RunPolicy.skipFire(), ctx -> 1);
        try (ConsoleServer server = TenureConsole.builder(pool).build().serve(new InetSocketAddress("127.0.0.1", 0))) {
            HttpResponse<String> overview = Http.get(server.url() + "/");
            assertThat(overview.headers().firstValue("Content-Security-Policy"))
                    .hasValueSatisfying(csp -> assertThat(csp).contains("script-src 'self'"));
            assertThat(overview.body())
                    .contains("x&lt;script&gt;alert(&#39;k&#39;)&lt;/script&gt;&amp;&quot;")
                    .doesNotContain("<script>alert");
            String job = Http.get(server.url() + "/job?key=" + java.net.URLEncoder.encode(key, "UTF-8"))
                    .body();
            assertThat(job).contains("&lt;img/src=x&gt;").doesNotContain("<img/src=x>", "<script>alert");
            assertThat(Http.get(server.url() + "/job?key=nope").statusCode()).isEqualTo(404);
            HttpResponse<String> junk = Http.get(server.url() + "/job?key=nope&before=junk");
            assertThat(junk.statusCode()).isEqualTo(400);
            assertThat(junk.body()).contains("cursor must be k&lt;fire key in base64url&gt;");
        }
    }

    private static String csrf(String page) {
        Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
        assertThat(m.find()).as("a CSRF token on the job page").isTrue();
        return m.group(1);
    }
}
